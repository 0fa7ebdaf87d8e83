#include "workload/swf.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace los {
namespace {

constexpr int kFields = 18;
constexpr const char* kFieldNames[kFields] = {"job number",
                                              "submit time",
                                              "wait time",
                                              "run time",
                                              "allocated processors",
                                              "average CPU time",
                                              "used memory",
                                              "requested processors",
                                              "requested time",
                                              "requested memory",
                                              "status",
                                              "user id",
                                              "group id",
                                              "executable number",
                                              "queue number",
                                              "partition number",
                                              "preceding job",
                                              "think time"};

struct GzCloser {
  void operator()(gzFile f) const {
    if (f) gzclose(f);
  }
};
using GzPtr = std::unique_ptr<std::remove_pointer_t<gzFile>, GzCloser>;

std::string where(const std::string& file, std::size_t line) { return file + ":" + std::to_string(line); }

// Input quoted in a message: at most kQuotedBytes of it, unprintable bytes
// escaped, so a hostile line cannot flood or garble the error.
constexpr std::size_t kQuotedBytes = 80;
std::string quoted(std::string_view text) {
  std::string out = "'";
  for (const char ch : text.substr(0, kQuotedBytes)) {
    const auto b = static_cast<unsigned char>(ch);
    if (b >= 0x20 && b < 0x7f && b != '\\') {
      out += ch;
    } else {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\x%02x", b);
      out += esc;
    }
  }
  out += '\'';
  if (text.size() > kQuotedBytes) {
    out += "... (";
    out += std::to_string(text.size());
    out += " bytes)";
  }
  return out;
}

// 2^63 as a double: values at or above it (or below its negative) do not fit
// a long long, and llround would be undefined on them.
constexpr double kTwoTo63 = 9223372036854775808.0;

// Accumulates lines and turns them into the cleaned workload.
class SwfParser {
 public:
  SwfParser(std::string name, SwfReadOptions options) : name_(std::move(name)), options_(options) {}

  void line(std::string_view text) {
    ++line_no_;
    if (text.size() > kSwfMaxLineBytes) {
      throw WorkloadError(where(name_, line_no_) + ": line longer than " + std::to_string(kSwfMaxLineBytes) +
                          " bytes, starting " + quoted(text));
    }
    // A NUL byte is binary data, not SWF text (and would cut a C string).
    if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
      throw WorkloadError(where(name_, line_no_) + ": column " + std::to_string(nul + 1) +
                          ": NUL byte: this is not SWF text");
    }
    while (!text.empty() && (text.back() == '\r' || text.back() == '\n')) text.remove_suffix(1);
    std::size_t p = 0;
    while (p < text.size() && (text[p] == ' ' || text[p] == '\t')) ++p;
    if (p == text.size()) return;  // blank line
    if (text[p] == ';') {
      header_line(text.substr(p + 1));
      return;
    }
    record(text.substr(p));
  }

  Workload finish() {
    Workload w;
    w.source = name_;
    w.header = std::move(header_);
    w.units = options_.units > 0 ? options_.units : (max_procs_ > 0 ? max_procs_ : max_nodes_);
    if (w.units <= 0) {
      throw WorkloadError(name_ +
                          ": the machine size is unknown: the header has no MaxProcs or MaxNodes; give --nodes N");
    }
    CleaningReport& c = w.cleaning;
    c = report_;
    w.jobs.reserve(raw_.size());
    for (const Job& j : raw_) {
      if (j.size > w.units) {
        ++c.dropped_oversize;
        continue;
      }
      w.jobs.push_back(j);
    }
    if (c.out_of_order > 0) {
      std::stable_sort(w.jobs.begin(), w.jobs.end(), [](const Job& a, const Job& b) { return a.submit < b.submit; });
    }
    return w;
  }

 private:
  void header_line(std::string_view text) {
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    header_.emplace_back(text);
    // The leading integer after `key` (-1 when the line is not that key or
    // holds no number); a number too large for a machine size is an error.
    auto value_of = [&](std::string_view key) -> int {
      if (text.substr(0, key.size()) != key) return -1;
      std::string_view rest = text.substr(key.size());
      while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
      if (!rest.empty() && rest.front() == '+') rest.remove_prefix(1);
      long long v = -1;
      const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), v);
      if (ec == std::errc::invalid_argument) return -1;
      if (ec == std::errc::result_out_of_range || v > std::numeric_limits<int>::max()) {
        const std::string_view digits = rest.substr(0, static_cast<std::size_t>(end - rest.data()));
        throw WorkloadError(where(name_, line_no_) + ": header " + std::string(key) + " " + quoted(digits) +
                            " is larger than the largest machine size, " +
                            std::to_string(std::numeric_limits<int>::max()));
      }
      return static_cast<int>(v);
    };
    if (int v = value_of("MaxProcs:"); v > 0) max_procs_ = v;
    if (int v = value_of("MaxNodes:"); v > 0) max_nodes_ = v;
  }

  void record(std::string_view text) {
    double f[kFields];
    std::string_view tokens[kFields];
    int n = 0;
    std::size_t p = 0;
    while (p < text.size()) {
      while (p < text.size() && (text[p] == ' ' || text[p] == '\t')) ++p;
      if (p >= text.size()) break;
      std::size_t e = p;
      while (e < text.size() && text[e] != ' ' && text[e] != '\t') ++e;
      if (n >= kFields) {
        ++n;
        p = e;
        continue;
      }
      const std::string_view token = text.substr(p, e - p);
      double v = 0;
      const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
      if (ec != std::errc() || end != token.data() + token.size() || !std::isfinite(v)) {
        throw WorkloadError(where(name_, line_no_) + ": field " + std::to_string(n + 1) + " (" + kFieldNames[n] +
                            "): not a number: " + quoted(token));
      }
      tokens[n] = token;
      f[n++] = v;
      p = e;
    }
    if (n != kFields) {
      throw WorkloadError(where(name_, line_no_) + ": expected " + std::to_string(kFields) + " fields, found " +
                          std::to_string(n));
    }
    ++report_.records;
    auto field_error = [&](int i, const std::string& why) {
      return WorkloadError(where(name_, line_no_) + ": field " + std::to_string(i + 1) + " (" + kFieldNames[i] +
                           "): " + why);
    };
    // Field i as an integer in [lo, hi]: exact when written as one (ids past
    // 2^53 stay exact), else the double rounded; never a silent wrap.
    auto integer = [&](int i, long long lo, long long hi) {
      long long v = 0;
      const std::string_view t = tokens[i];
      const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
      const bool exact = ec == std::errc() && end == t.data() + t.size();
      if (ec == std::errc::result_out_of_range || (!exact && !(f[i] > -kTwoTo63 && f[i] < kTwoTo63))) {
        throw field_error(i, quoted(t) + " does not fit a 64-bit integer");
      }
      if (!exact) v = std::llround(f[i]);
      if (v < lo || v > hi) {
        throw field_error(i, quoted(t) + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
      }
      return v;
    };
    constexpr long long kLongMin = std::numeric_limits<long long>::min();
    constexpr long long kLongMax = std::numeric_limits<long long>::max();
    constexpr long long kIntMin = std::numeric_limits<int>::min();
    constexpr long long kIntMax = std::numeric_limits<int>::max();
    // Times and durations: at most kTimeMax, so sums cannot reach the
    // planner's infinity (model/job.hpp).
    auto time_field = [&](int i, long long lo) {
      const long long v = integer(i, lo, kLongMax);
      if (v > kTimeMax) {
        throw field_error(i, std::to_string(v) + " s exceeds 2^50 s (" + std::to_string(kTimeMax) +
                                 "), the largest time LOS accepts");
      }
      return v;
    };
    auto size_field = [&](int i) {
      const long long v = integer(i, kLongMin, kLongMax);
      if (v < -1) throw field_error(i, "negative size " + std::to_string(v));
      return v;
    };
    const long long alloc = size_field(4);
    const long long req_procs = size_field(7);
    const long long submit = time_field(1, kLongMin);
    if (submit < -1) throw field_error(1, "negative submit time " + std::to_string(submit));
    const long long run = time_field(3, kLongMin);
    const long long req_time = time_field(8, kLongMin);

    Job j;
    j.id = integer(0, kLongMin, kLongMax);
    j.submit = submit;
    j.user = static_cast<int>(integer(11, kIntMin, kIntMax));
    j.group = static_cast<int>(integer(12, kIntMin, kIntMax));
    j.partition = static_cast<int>(integer(15, kIntMin, kIntMax));
    const long long status = integer(10, kLongMin, kLongMax);
    if (submit == -1) {  // unknown: the job has no place in the replay
      ++report_.dropped_unknown_submit;
      return;
    }
    long long size = req_procs;
    if (size == -1) {
      size = alloc;
      if (size > 0) ++report_.size_from_allocated;
    }
    long long runtime = run;
    // Cancelled before it ran: no run time (-1), status 5 (see
    // CancelledRecords).
    if (runtime < 0 && status == 5) {
      switch (options_.cancelled) {
        case CancelledRecords::Drop:
          ++report_.dropped_cancelled;
          return;
        case CancelledRecords::Keep:
          break;
        case CancelledRecords::Withdraw: {
          // The wait field is read only here: other records keep their
          // reading (and their errors) whatever it holds.
          const long long wait = time_field(2, kLongMin);
          if (wait < -1) throw field_error(2, "negative wait time " + std::to_string(wait));
          if (wait == -1) {
            ++report_.dropped_cancel_time_unknown;
            return;
          }
          j.cancel_lag = wait;
          break;
        }
      }
      runtime = 0;
    }
    if (size <= 0) {
      ++report_.dropped_zero_size;
      return;
    }
    if (runtime < 0) {
      ++report_.dropped_unknown_runtime;
      return;
    }
    j.size = static_cast<int>(std::min<long long>(size, 1 << 30));
    j.runtime = runtime;
    if (j.cancel_lag >= 0) {
      ++report_.withdrawn;
    } else if (runtime == 0) {
      ++report_.cancelled;
    }
    long long estimate = req_time;
    if (estimate <= 0) {
      estimate = std::max<long long>(runtime, 1);
      ++report_.estimate_from_runtime;
    }
    j.estimate = estimate;
    if (j.runtime > j.estimate) ++report_.runtime_over_estimate;
    if (!ids_.insert(j.id).second) {
      throw WorkloadError(where(name_, line_no_) + ": field 1 (job number): job " + std::to_string(j.id) +
                          " appears twice");
    }
    if (!raw_.empty() && j.submit < raw_.back().submit) ++report_.out_of_order;
    raw_.push_back(j);
  }

  std::string name_;
  SwfReadOptions options_;
  std::size_t line_no_ = 0;
  int max_procs_ = 0;
  int max_nodes_ = 0;
  std::vector<std::string> header_;
  std::vector<Job> raw_;
  std::unordered_set<JobId> ids_;
  CleaningReport report_;
};

}  // namespace

Workload read_swf(const std::string& path, const SwfReadOptions& options) {
  errno = 0;
  GzPtr file(gzopen(path.c_str(), "rb"));
  if (!file) {
    throw WorkloadError(path + ": cannot open: " + (errno ? std::strerror(errno) : "out of memory"));
  }
  gzbuffer(file.get(), 1 << 17);
  SwfParser parser(path, options);
  // Lines are split here, not by gzgets: a NUL byte must not cut a line,
  // and a line is never held past kSwfMaxLineBytes (+ one byte, so the
  // parser sees it is too long and says so).
  std::string pending;
  std::vector<char> buf(1 << 16);
  std::size_t lines = 0;
  for (;;) {
    const int got = gzread(file.get(), buf.data(), static_cast<unsigned>(buf.size()));
    if (got <= 0) break;
    std::string_view chunk(buf.data(), static_cast<std::size_t>(got));
    while (!chunk.empty()) {
      const std::size_t nl = chunk.find('\n');
      const std::string_view piece = chunk.substr(0, nl);
      if (pending.size() + piece.size() > kSwfMaxLineBytes) {
        pending.append(piece.substr(0, kSwfMaxLineBytes + 1 - pending.size()));
        parser.line(pending);  // throws: the line is too long
      }
      if (nl == std::string_view::npos) {
        pending.append(piece);  // continued in the next chunk, or the last line
        break;
      }
      ++lines;
      if (pending.empty()) {
        parser.line(piece);
      } else {
        pending.append(piece);
        parser.line(pending);
        pending.clear();
      }
      chunk.remove_prefix(nl + 1);
    }
  }
  int err = Z_OK;
  const char* msg = gzerror(file.get(), &err);
  if (err != Z_OK && err != Z_STREAM_END) {
    throw WorkloadError(path + ":" + std::to_string(lines + 1) + ": truncated or corrupt gzip data (" +
                        (err == Z_ERRNO ? std::strerror(errno) : msg) + ")");
  }
  if (!pending.empty()) parser.line(pending);
  return parser.finish();
}

Workload parse_swf(const std::string& text, const std::string& name, const SwfReadOptions& options) {
  SwfParser parser(name, options);
  std::size_t p = 0;
  while (p < text.size()) {
    std::size_t e = text.find('\n', p);
    if (e == std::string::npos) e = text.size();
    parser.line(std::string_view(text).substr(p, e - p));
    p = e + 1;
  }
  return parser.finish();
}

SwfRecord swf_record(const Job& job) {
  SwfRecord r;
  r.job = job.id;
  r.submit = job.submit;
  r.runtime = job.runtime;
  r.alloc = job.size;
  r.req_procs = job.size;
  r.req_time = job.estimate;
  r.status = 1;
  r.user = job.user;
  r.group = job.group;
  r.partition = job.partition;
  return r;
}

void write_swf(std::ostream& out, const std::vector<std::string>& header, const std::vector<SwfRecord>& records) {
  for (const std::string& h : header) out << "; " << h << '\n';
  char line[512];
  for (const SwfRecord& r : records) {
    const int n =
        std::snprintf(line, sizeof line,
                      "%lld %lld %lld %lld %lld %.6g %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld\n",
                      r.job, r.submit, r.wait, r.runtime, r.alloc, r.avg_cpu, r.used_mem, r.req_procs, r.req_time,
                      r.req_mem, r.status, r.user, r.group, r.executable, r.queue, r.partition, r.preceding, r.think);
    out.write(line, n);
  }
}

}  // namespace los
