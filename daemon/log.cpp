#include "log.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace los::daemon {
namespace {

// A value is quoted when it holds a space, quote or '=' so lines stay parseable.
std::string quoted(std::string_view v) {
  bool plain = !v.empty();
  for (char c : v) {
    if (c == ' ' || c == '"' || c == '=' || c == '\n' || c == '\t') plain = false;
  }
  if (plain) return std::string(v);
  std::string out = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

int syslog_priority(LogLevel level) {
  switch (level) {
    case LogLevel::Debug:
      return 7;
    case LogLevel::Info:
      return 6;
    case LogLevel::Warning:
      return 4;
    case LogLevel::Error:
      return 3;
  }
  return 6;
}

}  // namespace

std::optional<LogLevel> parse_log_level(std::string_view text) {
  if (text == "debug") return LogLevel::Debug;
  if (text == "info") return LogLevel::Info;
  if (text == "warning") return LogLevel::Warning;
  if (text == "error") return LogLevel::Error;
  return std::nullopt;
}

const char* to_string(LogLevel level) {
  switch (level) {
    case LogLevel::Debug:
      return "debug";
    case LogLevel::Info:
      return "info";
    case LogLevel::Warning:
      return "warning";
    case LogLevel::Error:
      return "error";
  }
  return "info";
}

Logger::Logger(LogLevel level) : level_(level), journal_(std::getenv("JOURNAL_STREAM") != nullptr) {}

void Logger::set_level(LogLevel level) {
  std::lock_guard lock(mutex_);
  level_ = level;
}

LogLevel Logger::level() const {
  std::lock_guard lock(mutex_);
  return level_;
}

void Logger::log(LogLevel level, std::string_view message, std::initializer_list<LogField> fields) {
  std::lock_guard lock(mutex_);
  write_locked(level, message, fields);
}

void Logger::client_log(LogLevel level, std::string_view kind, uid_t uid, std::string_view message,
                        std::initializer_list<LogField> fields) {
  std::lock_guard lock(mutex_);
  if (level < level_) return;
  const auto now = Clock::now();
  auto key = std::make_pair(std::string(kind), uid);
  auto it = repeats_.find(key);
  if (it != repeats_.end() && now - it->second.window_start >= kClientLogInterval) {
    summarize_locked(it->first, it->second);
    repeats_.erase(it);
    it = repeats_.end();
  }
  if (it == repeats_.end()) it = repeats_.emplace(std::move(key), Repeats{now, level, 0, 0}).first;
  Repeats& r = it->second;
  if (r.written < kClientLogBurst) {
    ++r.written;
    write_locked(level, message, fields);
  } else {
    r.level = std::max(r.level, level);
    ++r.suppressed;
  }
}

void Logger::flush_suppressed() {
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  for (auto it = repeats_.begin(); it != repeats_.end();) {
    if (now - it->second.window_start < kClientLogInterval) {
      ++it;
      continue;
    }
    summarize_locked(it->first, it->second);
    it = repeats_.erase(it);
  }
}

void Logger::summarize_locked(const std::pair<std::string, uid_t>& key, const Repeats& r) {
  if (r.suppressed == 0) return;
  std::string message = "suppressed ";
  message += std::to_string(r.suppressed);
  message += " similar warnings";
  write_locked(r.level, message,
               {{"kind", key.first},
                {"uid", std::to_string(key.second)},
                {"seconds", std::to_string(kClientLogInterval.count())}});
}

void Logger::write_locked(LogLevel level, std::string_view message, std::initializer_list<LogField> fields) {
  if (level < level_) return;
  std::string line;
  if (journal_) {
    line.push_back('<');
    line += std::to_string(syslog_priority(level));
    line.push_back('>');
  } else {
    const auto now = std::chrono::system_clock::now();
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ ", &tm);
    line = stamp;
  }
  line += "level=";
  line += to_string(level);
  line += " msg=" + quoted(message);
  for (const auto& [k, v] : fields) {
    line += ' ';
    line += k;
    line += '=' + quoted(v);
  }
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

}  // namespace los::daemon
