#include "workload/swf.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string_view>
#include <unordered_set>

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

// Accumulates lines and turns them into the cleaned workload.
class SwfParser {
 public:
  SwfParser(std::string name, SwfReadOptions options) : name_(std::move(name)), options_(options) {}

  void line(std::string_view text) {
    ++line_no_;
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
    auto value_of = [&](std::string_view key) -> int {
      if (text.substr(0, key.size()) != key) return -1;
      std::string rest(text.substr(key.size()));
      return std::atoi(rest.c_str());
    };
    if (int v = value_of("MaxProcs:"); v > 0) max_procs_ = v;
    if (int v = value_of("MaxNodes:"); v > 0) max_nodes_ = v;
  }

  void record(std::string_view text) {
    double f[kFields];
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
                            "): not a number: '" + std::string(token) + "'");
      }
      f[n++] = v;
      p = e;
    }
    if (n != kFields) {
      throw WorkloadError(where(name_, line_no_) + ": expected " + std::to_string(kFields) + " fields, found " +
                          std::to_string(n));
    }
    ++report_.records;
    auto integer = [&](int i) { return static_cast<long long>(std::llround(f[i])); };
    auto check_size = [&](int i) {
      if (integer(i) < -1) {
        throw WorkloadError(where(name_, line_no_) + ": field " + std::to_string(i + 1) + " (" + kFieldNames[i] +
                            "): negative size " + std::to_string(integer(i)));
      }
    };
    check_size(4);
    check_size(7);
    if (integer(1) < 0) {
      throw WorkloadError(where(name_, line_no_) + ": field 2 (submit time): negative submit time " +
                          std::to_string(integer(1)));
    }

    Job j;
    j.id = integer(0);
    j.submit = integer(1);
    j.user = static_cast<int>(integer(11));
    j.group = static_cast<int>(integer(12));
    j.partition = static_cast<int>(integer(15));
    long long size = integer(7);
    if (size == -1) {
      size = integer(4);
      if (size > 0) ++report_.size_from_allocated;
    }
    long long runtime = integer(3);
    // A job cancelled before it ran has no run time (-1) and status 5: it
    // stays in the workload as a zero-length job, as its place in the queue
    // was real.
    if (runtime < 0 && integer(10) == 5) runtime = 0;
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
    if (runtime == 0) ++report_.cancelled;
    long long estimate = integer(8);
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
  std::string pending;
  char buf[1 << 14];
  std::size_t lines = 0;
  for (;;) {
    const char* got = gzgets(file.get(), buf, sizeof buf);
    if (!got) break;
    const std::size_t len = std::strlen(buf);
    if (len > 0 && buf[len - 1] == '\n') {
      ++lines;
      if (pending.empty()) {
        parser.line(std::string_view(buf, len));
      } else {
        pending.append(buf, len);
        parser.line(pending);
        pending.clear();
      }
    } else {
      pending.append(buf, len);  // a line longer than the buffer, or the last line
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
