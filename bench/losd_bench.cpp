// End-to-end decision latency of losd over its Unix socket: encode a
// snapshot, send it, let losd decide, receive the decisions, decode them.
// Targets (issues 8 and 17): at 5,000 pending jobs on 1,000 nodes the worst
// step of every policy <= 20 ms; at 100,000 pending jobs on 10,000 nodes
// p99 <= 50 ms for easy, los, conservative and tabu (search capped).
//
//   build/bin/losd_bench [--policy=SPEC[,SPEC...]] [--pending=N] [--nodes=N]
//                        [--burst=N] [--arrivals=N] [--iterations=N]
//                        [benchmark flags]
//
// --policy defaults to "easy"; every spec los-sim accepts works.
// --pending (default 5000) pending jobs, --nodes (default 1000) nodes;
// --burst (default 1000) running jobs that end early in one burst snapshot
// (at most all running jobs), with --arrivals (default 100) new jobs;
// --iterations=N fixes every case's iteration count (0, the default: Google
// Benchmark decides from --benchmark_min_time). The workload is seeded: the
// same flags give the same snapshots.
//
// losd is started as a child process from the directory of this binary.
// Cases per policy:
//   steady   the same cluster state again (new sequence number): the policy
//            keeps its state and derives no events: the common case between
//            job events;
//   churn    every snapshot (30 s later) one running job has ended early,
//            those that reached their limits have ended (Slurm kills them
//            there), and one job has arrived: the incremental path with
//            compression;
//   resync   the resync flag is set on every snapshot: the policy rebuilds
//            from scratch each time: the worst case (daemon or plugin restart);
//   restart  losd itself restarts before each snapshot (untimed): a fresh
//            losd, the plugin's HELLO, then the timed snapshot with the
//            resync flag: the first step of a new losd, which plans the
//            whole queue (a policy with a step budget plans what it can);
//   overrun  every snapshot time moves to one second past the earliest limit
//            of an executing job, which is still reported running (Slurm
//            kills a job at its limit; it holds its nodes until they are
//            clean), the job that overran at the last snapshot has ended,
//            and one job arrives: the case of a job ending at its limit;
//   burst    --burst running jobs end early and --arrivals jobs arrive in one
//            snapshot; before each (untimed) the cluster is reset to the same
//            settled state and sent with the resync flag, so every iteration
//            times the same burst size;
//   steady_flood20
//            steady, while 20 query clients of one user (forked processes,
//            nobody when run as root, so the per-uid limits apply as to any
//            user) send STATUS and STARTS requests as fast as losd answers;
//   steady_flood20_exempt
//            the same flood from losd's own user, which the per-uid limits
//            exempt: what the event loop alone gives the plugin.
// A case whose step losd answers with ERROR (or that loses losd) stops,
// is reported as an error with losd's message, and its losd is stopped; the
// exit status is then 1.
// Counters: round trips (mean, p50, p99, max), losd's CPU per step (mean,
// max), decisions per step, and cut_steps: the timed steps whose planning
// stopped at the policy's step budget, read off losd's los_steps_cut_total
// (scraped between steps, untimed). In steady, after the warm-up's resync,
// that is how many steps a plan of the whole queue takes to catch up.
// The snapshot offers 5 time slots per node, so the time-sharing policies
// (gang family mpl <= 5, pect) run as configured instead of losd's fallback.
#include <benchmark/benchmark.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "../tests/support/losd_process.hpp"
#include "../tests/support/test_support.hpp"
#include "protocol/client.hpp"
#include "util/spec.hpp"

namespace {

using namespace los;

// The size of the benchmarked site; the defaults are issue 8's.
struct Scale {
  int nodes = 1000;
  int pending = 5000;
  int burst = 1000;
  int arrivals = 100;
  std::int64_t iterations = 0;  // 0: Google Benchmark decides
};

// CPU time (ns) that process `pid` has used so far, all its threads:
// /proc/PID/task/*/schedstat, first field. Tells losd's own work per step
// apart from the waiting a loaded machine adds to the round trip.
double cpu_ns(pid_t pid) {
  double total = 0;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    std::ifstream in(task.path() / "schedstat");
    double ns = 0;
    if (in >> ns) total += ns;
  }
  return total;
}

std::string losd_binary() { return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "losd").string(); }

// A busy partition: about 90% of the nodes held by running jobs of 1..6
// nodes, pending jobs of 1..64 nodes and limits up to a day.
class Cluster {
 public:
  explicit Cluster(const Scale& scale) : scale_(scale), rng_(2026) {
    snap_.nodes.reserve(static_cast<std::size_t>(scale.nodes));
    for (int i = 0; i < scale.nodes; ++i) snap_.nodes.push_back({"node" + std::to_string(i), Node::State::Idle});
    snap_.partition = "batch";
    snap_.time_slots = 5;
    const int busy = scale.nodes * 9 / 10;
    int node = 0;
    while (node < busy) {
      RunningJob r = make_running(node, busy);
      node += r.job.size;
      snap_.running.push_back(std::move(r));
    }
    snap_.queue.reserve(static_cast<std::size_t>(scale.pending));
    for (int i = 0; i < scale.pending; ++i) snap_.queue.push_back(make_pending());
  }

  protocol::SnapshotMessage message(std::uint64_t seq, bool resync) const {
    protocol::SnapshotMessage m;
    m.seq = seq;
    m.now = now_;
    m.resync = resync;
    m.partitions.push_back(snap_);
    return m;
  }

  // Time moves on, one running job ends early and those that reached their
  // limits end (Slurm kills them there), one job arrives. Returns how many
  // ended.
  std::size_t churn() { return end_and_arrive(1, 1, true, true); }

  // The job that overran at the last call ends; time moves to one second
  // past the earliest limit of an executing job, which keeps running; one job
  // arrives.
  void overrun() {
    if (overran_ != 0) {
      const auto it = std::find_if(snap_.running.begin(), snap_.running.end(),
                                   [&](const RunningJob& r) { return r.job.id == overran_; });
      if (it != snap_.running.end()) {
        std::swap(*it, snap_.running.front());
        end_and_arrive(1, 0, false);
      }
    }
    const RunningJob* first = nullptr;
    for (const RunningJob& r : snap_.running) {
      if (!r.suspended && (first == nullptr || r.start + r.job.estimate < first->start + first->job.estimate))
        first = &r;
    }
    if (first == nullptr) return;
    now_ = std::max(now_ + 1, first->start + first->job.estimate + 1);
    overran_ = first->job.id;
    snap_.queue.push_back(make_pending());
  }

  // Up to `scale.burst` running jobs end before their limits, `scale.arrivals`
  // jobs arrive. Returns how many ended.
  std::size_t burst() { return end_and_arrive(static_cast<std::size_t>(scale_.burst), scale_.arrivals); }

  // Apply losd's decisions as Slurm would: started jobs leave the queue and
  // run, suspended and resumed jobs change state, requeued jobs wait again.
  void apply(const protocol::DecisionsMessage& d) {
    std::unordered_map<JobId, const protocol::WireDecision*> starts;
    std::unordered_map<JobId, Decision::Kind> changes;
    for (const auto& x : d.decisions) {
      if (x.kind == Decision::Kind::Start) {
        if (!x.nodes.empty()) starts.emplace(x.job, &x);
      } else {
        changes[x.job] = x.kind;
      }
    }
    if (!changes.empty()) {
      std::vector<RunningJob> still;
      still.reserve(snap_.running.size());
      for (RunningJob& r : snap_.running) {
        const auto it = changes.find(r.job.id);
        if (it == changes.end()) {
          still.push_back(std::move(r));
        } else if (it->second == Decision::Kind::Requeue) {
          for (int n : r.nodes) snap_.nodes[static_cast<std::size_t>(n)].state = Node::State::Idle;
          snap_.queue.push_back(r.job);
        } else {
          r.suspended = it->second == Decision::Kind::Suspend;
          still.push_back(std::move(r));
        }
      }
      snap_.running = std::move(still);
    }
    if (!starts.empty()) {
      std::vector<Job> waiting;
      waiting.reserve(snap_.queue.size());
      for (Job& j : snap_.queue) {
        const auto it = starts.find(j.id);
        if (it == starts.end()) {
          waiting.push_back(std::move(j));
          continue;
        }
        RunningJob r;
        r.job = j;
        r.start = now_;
        for (const std::string& name : it->second->nodes) {
          int n = 0;
          std::from_chars(name.data() + 4, name.data() + name.size(), n);
          snap_.nodes[static_cast<std::size_t>(n)].state = Node::State::Allocated;
          r.nodes.push_back(n);
        }
        snap_.running.push_back(std::move(r));
      }
      snap_.queue = std::move(waiting);
    }
    // Keep the queue at its size: the benchmark measures `pending` jobs.
    while (snap_.queue.size() < static_cast<std::size_t>(scale_.pending)) snap_.queue.push_back(make_pending());
  }

 private:
  // `ends` running jobs end (the first ones, if `shuffle` is false; else a
  // seeded pick) and `arrivals` jobs arrive, 30 s later; with `at_limits`,
  // so do the executing jobs that reached their limits by then. Returns how
  // many ended.
  std::size_t end_and_arrive(std::size_t ends, int arrivals, bool shuffle = true, bool at_limits = false) {
    now_ += 30;
    ends = std::min(ends, snap_.running.size());
    // A seeded partial shuffle picks the jobs that end.
    for (std::size_t i = 0; shuffle && i < ends; ++i) {
      const std::size_t pick = i + rng_() % (snap_.running.size() - i);
      std::swap(snap_.running[i], snap_.running[pick]);
    }
    if (at_limits) {
      const auto limit_reached =
          std::stable_partition(snap_.running.begin() + static_cast<std::ptrdiff_t>(ends), snap_.running.end(),
                                [&](const RunningJob& r) { return !r.suspended && r.start + r.job.estimate <= now_; });
      ends = static_cast<std::size_t>(limit_reached - snap_.running.begin());
    }
    // Nodes another (running or suspended) job still holds stay allocated.
    std::unordered_set<int> ended_nodes;
    for (std::size_t i = 0; i < ends; ++i)
      ended_nodes.insert(snap_.running[i].nodes.begin(), snap_.running[i].nodes.end());
    snap_.running.erase(snap_.running.begin(), snap_.running.begin() + static_cast<std::ptrdiff_t>(ends));
    for (const RunningJob& r : snap_.running) {
      for (int n : r.nodes) ended_nodes.erase(n);
    }
    for (int n : ended_nodes) snap_.nodes[static_cast<std::size_t>(n)].state = Node::State::Idle;
    for (int i = 0; i < arrivals; ++i) snap_.queue.push_back(make_pending());
    return ends;
  }
  RunningJob make_running(int first_node, int busy) {
    RunningJob r;
    r.job.id = next_id_++;
    r.job.user = 1000 + static_cast<int>(rng_() % 50);
    r.job.size = std::min<int>(1 + static_cast<int>(rng_() % 6), busy - first_node);
    r.job.estimate = 600 + static_cast<Time>(rng_() % 86400);
    r.start = now_ - static_cast<Time>(rng_() % 600);
    r.job.submit = r.start - 100;
    for (int i = 0; i < r.job.size; ++i) {
      r.nodes.push_back(first_node + i);
      snap_.nodes[static_cast<std::size_t>(first_node + i)].state = Node::State::Allocated;
    }
    return r;
  }
  Job make_pending() {
    Job j;
    j.id = next_id_++;
    j.user = 1000 + static_cast<int>(rng_() % 50);
    j.submit = now_ - static_cast<Time>(rng_() % 3600);
    j.size = 1 + static_cast<int>(rng_() % 64);
    j.estimate = 60 + static_cast<Time>(rng_() % 86400);
    j.priority = static_cast<double>(rng_() % 100000);
    return j;
  }

  Scale scale_;
  std::mt19937 rng_;
  Snapshot snap_;
  JobId next_id_ = 1;
  Time now_ = 1'800'000'000;
  JobId overran_ = 0;  // overrun(): the job past its limit, still running
};

// Query clients flooding the query socket, each a forked process, until
// destroyed.
class QueryFlood {
 public:
  QueryFlood(const test::LosdProcess& losd, int clients, bool as_nobody) {
    if (as_nobody) {
      // losd's directory is 0700 (mkdtemp): let nobody reach the query socket.
      std::filesystem::permissions(std::filesystem::path(losd.query_socket()).parent_path(),
                                   std::filesystem::perms::owner_all | std::filesystem::perms::others_exec);
    }
    for (int i = 0; i < clients; ++i) {
      const pid_t pid = ::fork();
      if (pid == 0) {
        if (as_nobody && (::setresgid(65534, 65534, 65534) != 0 || ::setresuid(65534, 65534, 65534) != 0)) ::_exit(3);
        flood(losd.query_socket());
      }
      if (pid > 0) children_.push_back(pid);
    }
  }
  ~QueryFlood() {
    for (pid_t pid : children_) ::kill(pid, SIGKILL);
    for (pid_t pid : children_) ::waitpid(pid, nullptr, 0);
  }
  QueryFlood(const QueryFlood&) = delete;
  QueryFlood& operator=(const QueryFlood&) = delete;

 private:
  [[noreturn]] static void flood(const std::string& socket) {
    while (true) {
      try {
        protocol::Client c(socket, std::chrono::seconds(10));
        c.hello("flood");
        while (true) {
          try {
            c.request(protocol::encode_query_status());
            c.request(protocol::encode_query_starts(""));
          } catch (const protocol::RemoteError&) {
            // rate limited: the connection stays usable
          }
        }
      } catch (const std::exception&) {
        ::usleep(1000);
      }
    }
  }
  std::vector<pid_t> children_;
};

enum class Mode { Steady, Churn, Overrun, Resync, Restart, Burst, SteadyFlood, SteadyFloodExempt };

void run_case(benchmark::State& state, const std::string& policy, Mode mode, const Scale& scale) {
  const int metrics_port = test::free_tcp_port();
  const std::string config = "log_level: warning\ndefault_policy: \"" + policy +
                             "\"\nmetrics:\n  listen: \"127.0.0.1:" + std::to_string(metrics_port) + "\"\n";
  // los_steps_cut_total over every partition: the steps a step budget cut.
  const auto steps_cut = [metrics_port] {
    const std::string text = test::http_get(metrics_port, "/metrics");
    const std::string name = "los_steps_cut_total{";
    double total = 0;
    for (std::size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
      if (at > 0 && text[at - 1] != '\n') continue;
      const std::size_t space = text.find(' ', text.find('}', at));
      total += std::stod(text.substr(space + 1));
    }
    return total;
  };
  auto losd_ptr = std::make_unique<test::LosdProcess>(losd_binary(), config);
  std::unique_ptr<QueryFlood> flood;
  if (mode == Mode::SteadyFlood && ::geteuid() != 0) {
    state.SkipWithError("steady_flood20 needs root (its clients run as nobody)");
    return;
  }
  std::unique_ptr<protocol::Client> plugin;
  const auto connect = [&] {
    plugin = std::make_unique<protocol::Client>(losd_ptr->plugin_socket(), std::chrono::seconds(600));
    plugin->hello("losd_bench", "", "bench");
  };
  connect();
  Cluster cluster(scale);
  std::uint64_t seq = 0;
  const auto send = [&](const protocol::SnapshotMessage& m) {
    return protocol::decode_decisions(plugin->request(protocol::encode(m)).payload);
  };
  // Warm up: the first snapshot builds the policy's state.
  cluster.apply(send(cluster.message(++seq, true)));
  const Cluster settled = cluster;  // what each burst starts from
  if (mode == Mode::SteadyFlood || mode == Mode::SteadyFloodExempt) {
    flood = std::make_unique<QueryFlood>(*losd_ptr, 20, mode == Mode::SteadyFlood);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the flood under way
  }
  std::size_t bytes = 0;
  std::size_t decisions = 0;
  std::size_t starts = 0;  // the decisions that start a waiting job
  std::size_t ended = 0;
  std::size_t cut = 0;  // steps whose planning a step budget stopped
  double cut_before = steps_cut();
  double losd_cpu_sum = 0;  // losd's CPU time over the timed round trips, ms
  double losd_cpu_max = 0;
  std::vector<double> samples;  // each round trip, ms
  samples.reserve(4096);
  for (auto _ : state) {
    state.PauseTiming();
    if (mode == Mode::Churn) {
      ended += cluster.churn();
    } else if (mode == Mode::Overrun) {
      cluster.overrun();
      ++ended;
    } else if (mode == Mode::Burst) {
      cluster = settled;
      cluster.apply(send(cluster.message(++seq, true)));
      ended += cluster.burst();
    } else if (mode == Mode::Restart) {
      plugin.reset();
      losd_ptr.reset();  // first: the new losd takes the same metrics port
      losd_ptr = std::make_unique<test::LosdProcess>(losd_binary(), config);
      connect();
      cut_before = 0;
    }
    // The copy into the message is the benchmark's, not the plugin's work.
    const protocol::SnapshotMessage m = cluster.message(++seq, mode == Mode::Resync || mode == Mode::Restart);
    const double cpu0 = cpu_ns(losd_ptr->pid());
    state.ResumeTiming();
    const auto t0 = std::chrono::steady_clock::now();
    const protocol::Bytes frame = protocol::encode(m);
    const protocol::Frame reply = plugin->request(frame);
    const protocol::DecisionsMessage d = protocol::decode_decisions(reply.payload);
    samples.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    state.PauseTiming();
    const double cpu = (cpu_ns(losd_ptr->pid()) - cpu0) / 1e6;
    losd_cpu_sum += cpu;
    losd_cpu_max = std::max(losd_cpu_max, cpu);
    state.ResumeTiming();
    bytes = frame.size();
    decisions += d.decisions.size();
    for (const protocol::WireDecision& w : d.decisions) starts += w.kind == Decision::Kind::Start;
    state.PauseTiming();
    const double cut_now = steps_cut();
    cut += cut_now > cut_before;
    cut_before = cut_now;
    state.ResumeTiming();
    if (mode == Mode::Churn || mode == Mode::Overrun || mode == Mode::Burst) {
      state.PauseTiming();
      cluster.apply(d);
      state.ResumeTiming();
    }
  }
  state.counters["snapshot_bytes"] = static_cast<double>(bytes);
  std::sort(samples.begin(), samples.end());
  if (!samples.empty()) {
    double sum = 0;
    for (double s : samples) sum += s;
    state.counters["mean_ms"] = sum / static_cast<double>(samples.size());
    state.counters["p50_ms"] = samples[samples.size() / 2];
    state.counters["p99_ms"] = samples[std::min(samples.size() - 1, samples.size() * 99 / 100)];
    state.counters["max_ms"] = samples.back();
    state.counters["losd_cpu_mean_ms"] = losd_cpu_sum / static_cast<double>(samples.size());
    state.counters["losd_cpu_max_ms"] = losd_cpu_max;
  }
  state.counters["cut_steps"] = static_cast<double>(cut);
  state.counters["decisions_per_step"] =
      benchmark::Counter(static_cast<double>(decisions), benchmark::Counter::kAvgIterations);
  state.counters["starts_per_step"] =
      benchmark::Counter(static_cast<double>(starts), benchmark::Counter::kAvgIterations);
  if (mode == Mode::Churn || mode == Mode::Overrun || mode == Mode::Burst) {
    state.counters["ended_per_step"] =
        benchmark::Counter(static_cast<double>(ended), benchmark::Counter::kAvgIterations);
  }
}

bool int_flag(const std::string& arg, const std::string& name, std::int64_t lo, std::int64_t& out) {
  const std::string prefix = "--" + name + "=";
  if (arg.rfind(prefix, 0) != 0) return false;
  const char* first = arg.data() + prefix.size();
  const char* last = arg.data() + arg.size();
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || end != last || v < lo) {
    throw std::invalid_argument("bad " + prefix + " (an integer >= " + std::to_string(lo) + ")");
  }
  out = v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  std::string policies = "easy";
  Scale scale;
  bool failed = false;  // a case skipped with an error
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      std::int64_t v = 0;
      if (a.rfind("--policy=", 0) == 0) {
        policies = a.substr(9);
      } else if (int_flag(a, "pending", 0, v)) {
        scale.pending = static_cast<int>(v);
      } else if (int_flag(a, "nodes", 10, v)) {
        scale.nodes = static_cast<int>(v);
      } else if (int_flag(a, "burst", 0, v)) {
        scale.burst = static_cast<int>(v);
      } else if (int_flag(a, "arrivals", 0, v)) {
        scale.arrivals = static_cast<int>(v);
      } else if (int_flag(a, "iterations", 0, v)) {
        scale.iterations = v;
      } else {
        std::cerr << "losd_bench: unknown argument '" << a
                  << "' (use --policy=NAME[,NAME...] --pending=N --nodes=N --burst=N --arrivals=N --iterations=N)\n";
        return 2;
      }
    }
    for (const los::Spec& spec : los::parse_spec_list(policies)) {
      const std::string p = spec.to_string();
      for (const auto& [label, mode] :
           {std::pair{"steady", Mode::Steady}, std::pair{"churn", Mode::Churn}, std::pair{"overrun", Mode::Overrun},
            std::pair{"resync", Mode::Resync}, std::pair{"restart", Mode::Restart}, std::pair{"burst", Mode::Burst},
            std::pair{"steady_flood20", Mode::SteadyFlood},
            std::pair{"steady_flood20_exempt", Mode::SteadyFloodExempt}}) {
        // A case that fails (losd answers with ERROR, or dies) is reported
        // as skipped with the error, after its losd was stopped (unwinding),
        // and the exit status says so.
        auto* b = benchmark::RegisterBenchmark(("losd_roundtrip/" + p + "/" + label).c_str(),
                                               [p, mode = mode, scale, &failed](benchmark::State& s) {
                                                 try {
                                                   run_case(s, p, mode, scale);
                                                 } catch (const std::exception& e) {
                                                   failed = true;
                                                   s.SkipWithError(e.what());
                                                 }
                                               });
        b->Unit(benchmark::kMillisecond)->UseRealTime();
        if (scale.iterations > 0) b->Iterations(scale.iterations);
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "losd_bench: " << e.what() << "\n";
    return 2;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return failed ? 1 : 0;
}
