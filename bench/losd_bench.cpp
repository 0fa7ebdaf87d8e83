// End-to-end decision latency of losd over its Unix socket: encode a
// snapshot, send it, let losd decide, receive the decisions, decode them.
// The acceptance target: < 20 ms for 5,000 pending jobs on 1,000 nodes.
//
//   build/bin/losd_bench [--policy=SPEC[,SPEC...]] [benchmark flags]
//
// --policy defaults to "easy"; every spec los-sim accepts works.
//
// losd is started as a child process from the directory of this binary.
// Cases per policy:
//   steady   the same cluster state again (new sequence number): the policy
//            keeps its state and derives no events: the common case between
//            job events;
//   churn    every snapshot one running job has ended and one job has
//            arrived: the incremental path with compression;
//   resync   the resync flag is set on every snapshot: the policy rebuilds
//            from scratch each time: the worst case (daemon or plugin restart).
//   steady_flood20
//            steady, while 20 query clients of one user (forked processes,
//            nobody when run as root, so the per-uid limits apply as to any
//            user) send STATUS and STARTS requests as fast as losd answers;
//   steady_flood20_exempt
//            the same flood from losd's own user, which the per-uid limits
//            exempt: what the event loop alone gives the plugin.
#include <benchmark/benchmark.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "../tests/support/losd_process.hpp"
#include "protocol/client.hpp"
#include "util/spec.hpp"

namespace {

using namespace los;

constexpr int kNodes = 1000;
constexpr int kPending = 5000;

std::string losd_binary() { return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "losd").string(); }

// A busy partition: about 900 of 1,000 nodes held by running jobs, 5,000
// pending jobs of 1..64 nodes and limits up to a day.
class Cluster {
 public:
  Cluster() : rng_(2026) {
    for (int i = 0; i < kNodes; ++i) snap_.nodes.push_back({"node" + std::to_string(i), Node::State::Idle});
    snap_.partition = "batch";
    int node = 0;
    while (node < 900) {
      RunningJob r = make_running(node);
      node += r.job.size;
      snap_.running.push_back(std::move(r));
    }
    for (int i = 0; i < kPending; ++i) snap_.queue.push_back(make_pending());
  }

  protocol::SnapshotMessage message(std::uint64_t seq, bool resync) const {
    protocol::SnapshotMessage m;
    m.seq = seq;
    m.now = now_;
    m.resync = resync;
    m.partitions.push_back(snap_);
    return m;
  }

  // One running job ends (its nodes go idle), one job arrives, time moves on.
  void churn() {
    now_ += 30;
    const std::size_t victim = rng_() % snap_.running.size();
    for (int n : snap_.running[victim].nodes) snap_.nodes[n].state = Node::State::Idle;
    snap_.running.erase(snap_.running.begin() + static_cast<std::ptrdiff_t>(victim));
    snap_.queue.push_back(make_pending());
  }

  // Apply losd's start decisions: the jobs leave the queue and run.
  void apply(const protocol::DecisionsMessage& d) {
    for (const auto& x : d.decisions) {
      if (x.kind != Decision::Kind::Start || x.nodes.empty()) continue;
      const auto it = std::find_if(snap_.queue.begin(), snap_.queue.end(), [&](const Job& j) { return j.id == x.job; });
      if (it == snap_.queue.end()) continue;
      RunningJob r;
      r.job = *it;
      r.start = now_;
      for (const std::string& name : x.nodes) {
        const int n = std::stoi(name.substr(4));
        snap_.nodes[n].state = Node::State::Allocated;
        r.nodes.push_back(n);
      }
      snap_.running.push_back(std::move(r));
      snap_.queue.erase(it);
    }
    // Keep the queue at its size: the benchmark measures 5,000 pending jobs.
    while (snap_.queue.size() < static_cast<std::size_t>(kPending)) snap_.queue.push_back(make_pending());
  }

 private:
  RunningJob make_running(int first_node) {
    RunningJob r;
    r.job.id = next_id_++;
    r.job.user = 1000 + static_cast<int>(rng_() % 50);
    r.job.size = std::min<int>(1 + static_cast<int>(rng_() % 6), 900 - first_node);
    r.job.estimate = 600 + static_cast<Time>(rng_() % 86400);
    r.start = now_ - static_cast<Time>(rng_() % 600);
    r.job.submit = r.start - 100;
    for (int i = 0; i < r.job.size; ++i) {
      r.nodes.push_back(first_node + i);
      snap_.nodes[first_node + i].state = Node::State::Allocated;
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

  std::mt19937 rng_;
  Snapshot snap_;
  JobId next_id_ = 1;
  Time now_ = 1'800'000'000;
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

enum class Mode { Steady, Churn, Resync, SteadyFlood, SteadyFloodExempt };

void run_case(benchmark::State& state, const std::string& policy, Mode mode) {
  test::LosdProcess losd(losd_binary(), "log_level: warning\ndefault_policy: \"" + policy + "\"\n");
  std::unique_ptr<QueryFlood> flood;
  if (mode == Mode::SteadyFlood && ::geteuid() != 0) {
    state.SkipWithError("steady_flood20 needs root (its clients run as nobody)");
    return;
  }
  protocol::Client plugin(losd.plugin_socket(), std::chrono::seconds(60));
  plugin.hello("losd_bench", "", "bench");
  Cluster cluster;
  std::uint64_t seq = 0;
  // Warm up: the first snapshot builds the policy's state.
  cluster.apply(protocol::decode_decisions(plugin.request(protocol::encode(cluster.message(++seq, true))).payload));
  if (mode == Mode::SteadyFlood || mode == Mode::SteadyFloodExempt) {
    flood = std::make_unique<QueryFlood>(losd, 20, mode == Mode::SteadyFlood);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the flood under way
  }
  std::size_t bytes = 0;
  std::size_t decisions = 0;
  std::vector<double> samples;  // each round trip, ms
  samples.reserve(4096);
  for (auto _ : state) {
    if (mode == Mode::Churn) {
      state.PauseTiming();
      cluster.churn();
      state.ResumeTiming();
    }
    const auto t0 = std::chrono::steady_clock::now();
    const protocol::Bytes frame = protocol::encode(cluster.message(++seq, mode == Mode::Resync));
    const protocol::Frame reply = plugin.request(frame);
    const protocol::DecisionsMessage d = protocol::decode_decisions(reply.payload);
    samples.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    bytes = frame.size();
    decisions += d.decisions.size();
    if (mode == Mode::Churn) {
      state.PauseTiming();
      cluster.apply(d);
      state.ResumeTiming();
    }
  }
  state.counters["snapshot_bytes"] = static_cast<double>(bytes);
  std::sort(samples.begin(), samples.end());
  if (!samples.empty()) {
    state.counters["p50_ms"] = samples[samples.size() / 2];
    state.counters["p99_ms"] = samples[std::min(samples.size() - 1, samples.size() * 99 / 100)];
    state.counters["max_ms"] = samples.back();
  }
  state.counters["decisions_per_step"] =
      benchmark::Counter(static_cast<double>(decisions), benchmark::Counter::kAvgIterations);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  std::string policies = "easy";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--policy=", 0) == 0) {
      policies = a.substr(9);
    } else {
      std::cerr << "losd_bench: unknown argument '" << a << "' (use --policy=NAME[,NAME...])\n";
      return 2;
    }
  }
  try {
    for (const los::Spec& spec : los::parse_spec_list(policies)) {
      const std::string p = spec.to_string();
      for (const auto& [label, mode] :
           {std::pair{"steady", Mode::Steady}, std::pair{"churn", Mode::Churn}, std::pair{"resync", Mode::Resync},
            std::pair{"steady_flood20", Mode::SteadyFlood},
            std::pair{"steady_flood20_exempt", Mode::SteadyFloodExempt}}) {
        benchmark::RegisterBenchmark(("losd_roundtrip/" + p + "/" + label).c_str(),
                                     [p, mode = mode](benchmark::State& s) { run_case(s, p, mode); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "losd_bench: " << e.what() << "\n";
    return 2;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
