// Structured logs for losd: one line per event, "level=... msg=... key=value",
// to stderr. Under systemd (JOURNAL_STREAM set) each line starts with the
// syslog priority prefix "<N>" so journald records the level.
#pragma once

#include <initializer_list>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace los::daemon {

enum class LogLevel { Debug = 0, Info = 1, Warning = 2, Error = 3 };

// "debug", "info", "warning", "error"; nullopt for anything else.
std::optional<LogLevel> parse_log_level(std::string_view text);
const char* to_string(LogLevel level);

using LogField = std::pair<std::string_view, std::string>;

class Logger {
 public:
  explicit Logger(LogLevel level = LogLevel::Info);

  void set_level(LogLevel level);
  LogLevel level() const;

  void log(LogLevel level, std::string_view message, std::initializer_list<LogField> fields = {});
  void debug(std::string_view m, std::initializer_list<LogField> f = {}) { log(LogLevel::Debug, m, f); }
  void info(std::string_view m, std::initializer_list<LogField> f = {}) { log(LogLevel::Info, m, f); }
  void warning(std::string_view m, std::initializer_list<LogField> f = {}) { log(LogLevel::Warning, m, f); }
  void error(std::string_view m, std::initializer_list<LogField> f = {}) { log(LogLevel::Error, m, f); }

 private:
  mutable std::mutex mutex_;  // the forecast worker logs too
  LogLevel level_;
  bool journal_;
};

}  // namespace los::daemon
