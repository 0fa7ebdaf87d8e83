// Helpers shared by the tests: hand-made workloads, shared traces, running a policy.
#pragma once

#include <string>
#include <vector>

#include "policy/policy.hpp"
#include "sim/simulator.hpp"
#include "workload/swf.hpp"

namespace los::test {

// A job for hand-made workloads: id, submit, size, estimate, runtime (runtime
// defaults to the estimate), user.
Job job(JobId id, Time submit, int size, Time estimate, Time runtime = -1, int user = 1);

// A workload of `units` units holding `jobs` (sorted by submit here).
Workload workload(int units, std::vector<Job> jobs);

// A snapshot at `now` of a partition of `units` units with nothing running
// and `queue` waiting.
Snapshot idle_partition(int units, Time now, std::vector<Job> queue);

// Path of a shared trace, or "" when ../shared/traces is absent (tests skip then).
// With LOS_TEST_TRACE_JOBS=N in the environment (the sanitizer builds of
// scripts/test-hardening.sh), a plain-text copy of the trace's header and its
// first N job records instead: whole-trace tests then check the same
// properties on a prefix.
std::string shared_trace(const std::string& file);

// All shared SWF traces present (prefixes under LOS_TEST_TRACE_JOBS).
std::vector<std::string> shared_traces();

// Simulates `policy_spec` on `w` and returns the outcome per job id order of w.
SimResult run(const Workload& w, const std::string& policy_spec, bool kill_at_estimate = true);

// start time of job `id` in r.
Time start_of(const SimResult& r, JobId id);
// end time of job `id` in r.
Time end_of(const SimResult& r, JobId id);

// A shell command's exit status (-1 if it did not exit) and its stdout and
// stderr together.
struct CommandResult {
  int status;
  std::string output;
};
CommandResult run_command(const std::string& command);

// A TCP port on 127.0.0.1 that was free a moment ago (for losd's metrics listener).
int free_tcp_port();

// A TCP connection to 127.0.0.1:port, or -1 if refused.
int connect_tcp(int port);

// The whole HTTP/1.0 answer (status line, headers, body) of GET path on
// 127.0.0.1:port; "" if the connection is refused.
std::string http_get(int port, const std::string& path);

}  // namespace los::test
