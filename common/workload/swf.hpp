// The Standard Workload Format (Feitelson et al., Parallel Workloads Archive):
// reading traces, plain or gzip-compressed, and writing workloads and
// simulated schedules.
//
// Real traces are dirty. The reader cleans them and counts what it did, so a
// researcher can report it (docs/simulator.md lists every rule):
//   requested size -1          use the allocated size
//   size 0 (or both missing)   dropped, counted
//   size above the machine     dropped, counted
//   submit time -1 (unknown)   dropped, counted
//   run time -1, status 5      cancelled before it ran: dropped, counted
//                              (SwfReadOptions::cancelled: Keep keeps it as
//                              a zero-length job that waits in the queue;
//                              Withdraw keeps it with a cancel time, submit
//                              + wait, and drops and counts it when its wait
//                              is -1)
//   run time -1 otherwise      unknown: dropped, counted
//   run time 0                 kept: it waits, starts and ends at once
//   estimate -1 or 0           the run time is the estimate (at least 1 s)
//   run time > estimate        kept and counted; the simulator kills the job
//                              at its estimate unless --no-kill
//   submit times out of order  sorted (stable), counted, warned about
// Malformed input is an error naming file, line and field: a non-numeric
// field, a wrong field count, a size below -1, a submit time below -1, a
// time or duration above kTimeMax (2^50 s, model/job.hpp), an integer field
// that does not fit (64 bits; 32 for user, group, partition), a header
// MaxProcs / MaxNodes above 2^31-1, a NUL byte, a line longer than
// kSwfMaxLineBytes, a truncated or corrupt gzip stream, a missing file.
// Messages quote at most 80 bytes of the input.
#pragma once

#include <cstddef>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/job.hpp"

namespace los {

class WorkloadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What cleaning a trace did.
struct CleaningReport {
  std::size_t records = 0;  // job lines read
  std::size_t dropped_zero_size = 0;
  std::size_t dropped_oversize = 0;
  std::size_t dropped_unknown_runtime = 0;
  std::size_t dropped_unknown_submit = 0;       // submit time -1
  std::size_t dropped_cancelled = 0;            // run time -1, status 5: never ran
  std::size_t dropped_cancel_time_unknown = 0;  // ditto, withdrawn but its wait is -1
  std::size_t withdrawn = 0;                    // ditto, kept with a cancel time (Withdraw)
  std::size_t size_from_allocated = 0;          // requested size was -1
  std::size_t estimate_from_runtime = 0;        // estimate was -1 or 0
  std::size_t runtime_over_estimate = 0;
  std::size_t cancelled = 0;     // run time 0 (kept)
  std::size_t out_of_order = 0;  // submit earlier than the line before

  std::size_t dropped() const {
    return dropped_zero_size + dropped_oversize + dropped_unknown_runtime + dropped_unknown_submit + dropped_cancelled +
           dropped_cancel_time_unknown;
  }
};

struct Workload {
  std::string source;     // file name or generator description
  int units = 0;          // machine size in allocation units
  std::vector<Job> jobs;  // sorted by submit time, ids unique
  CleaningReport cleaning;
  std::vector<std::string> header;  // the trace's header comment lines, without ';'
};

// Longest line the reader accepts, in bytes (real traces' lines are under
// 100): a longer one is an error, read no further than this.
inline constexpr std::size_t kSwfMaxLineBytes = 64 * 1024;

// What becomes of a record cancelled before it ran (run time -1, status 5).
// Its wait field is the time from submission until the user cancelled it.
enum class CancelledRecords {
  Drop,      // dropped and counted: it used no processors (los-sim's default)
  Keep,      // a zero-length job that waits until the simulated scheduler
             // starts it (los-sim --cancelled=keep, alias --keep-cancelled)
  Withdraw,  // kept with its size and estimate, run time 0 (it did no work
             // in reality) and Job::cancel_lag = its wait: the simulator
             // withdraws it then (--cancelled=withdraw). Wait -1: dropped,
             // counted as dropped_cancel_time_unknown.
};

struct SwfReadOptions {
  // Machine size; 0 takes it from the header (MaxProcs, else MaxNodes).
  int units = 0;
  CancelledRecords cancelled = CancelledRecords::Drop;
};

// Reads and cleans an SWF file (".gz" or plain; gzip is detected by content).
Workload read_swf(const std::string& path, const SwfReadOptions& options = {});

// Parses SWF text already in memory (tests, generated data). `name` stands
// for the file name in error messages.
Workload parse_swf(const std::string& text, const std::string& name, const SwfReadOptions& options = {});

// One line of SWF output: the 18 fields.
struct SwfRecord {
  long long job = 0, submit = 0, wait = -1, runtime = -1, alloc = -1;
  double avg_cpu = -1;
  long long used_mem = -1, req_procs = -1, req_time = -1, req_mem = -1, status = -1, user = -1, group = -1,
            executable = -1, queue = -1, partition = -1, preceding = -1, think = -1;
};

// The record of a job as submitted (wait -1, status 1).
SwfRecord swf_record(const Job& job);

// Writes header comments (each prefixed "; ") and records.
void write_swf(std::ostream& out, const std::vector<std::string>& header, const std::vector<SwfRecord>& records);

}  // namespace los
