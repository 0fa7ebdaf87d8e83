// Structured logs for losd: one line per event, "level=... msg=... key=value",
// to stderr. Under systemd (JOURNAL_STREAM set) each line starts with the
// syslog priority prefix "<N>" so journald records the level.
//
// What a client can trigger at will (refusals, bad frames, timeouts) is
// logged through client_log: per (kind, uid) the first kClientLogBurst lines
// of each kClientLogInterval are written, the rest are counted and summed up
// in one "suppressed K similar warnings" line, so no client can flood the log.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <map>
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

inline constexpr int kClientLogBurst = 5;
inline constexpr std::chrono::seconds kClientLogInterval{10};

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

  // A line a client caused; `kind` groups repeats (e.g. "protocol error/not_allowed").
  void client_log(LogLevel level, std::string_view kind, uid_t uid, std::string_view message,
                  std::initializer_list<LogField> fields = {});
  // Writes the summary of every (kind, uid) whose interval has ended and
  // forgets it; the server calls this periodically so a flood that stops is
  // still summed up.
  void flush_suppressed();

 private:
  using Clock = std::chrono::steady_clock;
  struct Repeats {
    Clock::time_point window_start;
    LogLevel level = LogLevel::Warning;
    int written = 0;
    long long suppressed = 0;
  };
  void write_locked(LogLevel level, std::string_view message, std::initializer_list<LogField> fields);
  void summarize_locked(const std::pair<std::string, uid_t>& key, const Repeats& r);

  mutable std::mutex mutex_;  // the forecast worker logs too
  LogLevel level_;
  bool journal_;
  std::map<std::pair<std::string, uid_t>, Repeats> repeats_;
};

}  // namespace los::daemon
