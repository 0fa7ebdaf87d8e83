// One scheduling cycle (cycle.c) against a fake scheduler in place of
// slurmctld and a fake losd on a real socket: which decisions are applied and
// in what order, what happens to a refused one, when the fallback decides,
// and when the next cycle is due.
#include <gtest/gtest.h>
#include <poll.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "cycle.h"
#include "fallback.h"
#include "options.h"
#include "protocol/codec.hpp"
#include "snapshot.h"

#include "plugin_test_support.hpp"

namespace {

using namespace los::plugin_test;
using los::protocol::WireDecision;

struct FakeJob {
  std::uint32_t id = 0;
  std::uint8_t state = LOS_JOB_PENDING;
  std::string partition = "batch";
  std::uint32_t min_nodes = 1;
  bool eligible = true;
  std::string refuse;  // non-empty: the scheduler refuses any action on it with this reason
};

const char* state_name(std::uint8_t state) {
  switch (state) {
    case LOS_JOB_PENDING:
      return "PENDING";
    case LOS_JOB_RUNNING:
      return "RUNNING";
    case LOS_JOB_SUSPENDED:
      return "SUSPENDED";
  }
  return "COMPLETED";
}

// Stands in for slurmctld: a job table, the actions applied to it in order,
// and the log lines.
class FakeScheduler {
 public:
  std::map<std::uint32_t, FakeJob> jobs;
  std::vector<std::string> actions;  // "start 1 on n1,n2", "suspend 2", ...
  std::vector<std::string> log;      // "E: ...", "I: ...", "D: ..."
  int locks = 0;
  bool touched_unlocked = false;       // a job was looked up or acted on outside lock/unlock
  bool want_predictions = false;       // sets ops.predict
  bool shutting_down = false;          // what ops.shutting_down answers
  std::vector<std::string> predicted;  // "partition:job@start" per prediction handed over

  void add(std::uint32_t id, std::uint32_t min_nodes, std::uint8_t state = LOS_JOB_PENDING) {
    FakeJob& j = jobs[id];
    j.id = id;
    j.min_nodes = min_nodes;
    j.state = state;
  }

  los_cycle_ops ops() {
    los_cycle_ops o{};
    o.ctx = this;
    o.lock = [](void* c) {
      auto* s = self(c);
      ++s->locks;
      s->locked_ = true;
    };
    o.unlock = [](void* c) { self(c)->locked_ = false; };
    o.find_job = [](void* c, std::uint64_t id, los_job_view* view) {
      auto* s = self(c);
      s->check_locked();
      auto it = s->jobs.find(id);
      if (it == s->jobs.end()) return -1;
      FakeJob& j = it->second;
      view->handle = &j;
      view->state = j.state;
      view->state_name = state_name(j.state);
      view->partition = j.partition.c_str();
      view->min_nodes = j.min_nodes;
      view->eligible = j.eligible && j.state == LOS_JOB_PENDING;
      return 0;
    };
    o.start = [](void* c, const los_job_view* view, const los_decision* d, los_outcome* out) {
      std::string nodes;
      for (std::uint32_t n = 0; n < d->node_count; ++n) nodes += (n ? "," : " on ") + std::string(d->nodes[n]);
      self(c)->act(view, "start", LOS_JOB_RUNNING, nodes, out);
    };
    o.suspend = [](void* c, const los_job_view* view, los_outcome* out) {
      self(c)->act(view, "suspend", LOS_JOB_SUSPENDED, "", out);
    };
    o.resume = [](void* c, const los_job_view* view, los_outcome* out) {
      self(c)->act(view, "resume", LOS_JOB_RUNNING, "", out);
    };
    o.requeue = [](void* c, const los_job_view* view, los_outcome* out) {
      self(c)->act(view, "requeue", LOS_JOB_PENDING, "", out);
    };
    if (want_predictions) {
      o.predict = [](void* c, const los_predictions* starts, const los_snapshot* snap) {
        auto* s = self(c);
        s->check_locked();
        for (std::uint32_t i = 0; i < starts->count; ++i)
          s->predicted.push_back(std::string(starts->items[i].partition) + ":" + std::to_string(starts->items[i].job) +
                                 "@" + std::to_string(starts->items[i].start) + " of " +
                                 std::to_string(snap->partition_count));
      };
    }
    o.shutting_down = [](void* c) {
      auto* s = self(c);
      s->check_locked();
      return s->shutting_down ? 1 : 0;
    };
    o.log = [](void* c, los_log_level level, const char* line) {
      const char* tag = level == LOS_LOG_ERROR ? "E: " : level == LOS_LOG_INFO ? "I: " : "D: ";
      self(c)->log.push_back(tag + std::string(line));
    };
    return o;
  }

  // Log lines containing `part`.
  std::vector<std::string> lines_with(const std::string& part) const {
    std::vector<std::string> out;
    std::copy_if(log.begin(), log.end(), std::back_inserter(out),
                 [&](const std::string& l) { return l.find(part) != std::string::npos; });
    return out;
  }

 private:
  bool locked_ = false;
  static FakeScheduler* self(void* c) { return static_cast<FakeScheduler*>(c); }
  void check_locked() {
    if (!locked_) touched_unlocked = true;
  }
  void act(const los_job_view* view, const char* what, std::uint8_t next, const std::string& detail, los_outcome* out) {
    check_locked();
    auto* j = static_cast<FakeJob*>(view->handle);
    if (!j->refuse.empty()) {
      std::snprintf(out->reason, sizeof out->reason, "%s", j->refuse.c_str());
      out->report = LOS_REPORT_START_FAILED;
      return;
    }
    j->state = next;
    actions.push_back(what + (" " + std::to_string(j->id)) + detail);
  }
};

// A losd stand-in on a real socket: answers HELLO, answers every SNAPSHOT
// with `decisions` (for that snapshot's seq), and records what it receives
// until the plugin closes the connection; read it after join().
class FakeLosd {
 public:
  FakeLosd(std::string path, std::vector<WireDecision> decisions, los::Time wakeup = los::kTimeInfinity)
      : path_(std::move(path)), decisions_(std::move(decisions)), wakeup_(wakeup), listen_fd_(listen_on(path_)) {
    thread_ = std::thread([this] { serve(); });
  }
  FakeLosd(const FakeLosd&) = delete;
  ~FakeLosd() {
    join();
    if (listen_fd_ >= 0) close(listen_fd_);
    unlink(path_.c_str());
  }
  bool listening() const { return listen_fd_ >= 0; }
  void join() {
    if (thread_.joinable()) thread_.join();
  }

  std::vector<los::protocol::Report> reports;
  std::vector<bool> resync;  // per snapshot received

 private:
  void serve() {
    pollfd p{listen_fd_, POLLIN, 0};
    if (listen_fd_ < 0 || poll(&p, 1, 5000) != 1) return;  // the plugin never came
    const int fd = accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) return;
    Bytes payload;
    los::protocol::FrameHeader h;
    while (read_frame(fd, payload, h)) {
      if (h.type == LOS_MSG_HELLO) {
        los::protocol::HelloOk ok;
        ok.cluster = los::protocol::decode_hello(payload).cluster;
        ok.daemon_version = "test";
        write_all(fd, los::protocol::encode(ok, h.request_id));
      } else if (h.type == LOS_MSG_SNAPSHOT) {
        const auto snap = los::protocol::decode_snapshot(payload);
        resync.push_back(snap.resync);
        los::protocol::DecisionsMessage m;
        m.seq = snap.seq;
        m.wakeup = wakeup_;
        m.decisions = decisions_;
        write_all(fd, los::protocol::encode(m, h.request_id));
      } else if (h.type == LOS_MSG_REPORT) {
        reports.push_back(los::protocol::decode_report(payload));
      }
    }
    close(fd);
  }

  std::string path_;
  std::vector<WireDecision> decisions_;
  los::Time wakeup_;
  int listen_fd_;
  std::thread thread_;
};

struct Cycle {
  los_cycle c{};
  Cycle() { los_cycle_init(&c); }
  Cycle(const Cycle&) = delete;
  ~Cycle() { los_cycle_free(&c); }
};

// The snapshot every test schedules: 4 idle nodes, jobs 1 and 2 of 2 nodes
// and job 3 of 1 node pending, in that order; the fake scheduler knows them.
void stale_or_fresh_snapshot(Snap& snap, FakeScheduler* sched) {
  los_partition* p = add_partition(snap.s, "batch", 4);
  add_pending(p, 1, 2, 60, 30);
  add_pending(p, 2, 2, 60, 20);
  add_pending(p, 3, 1, 60, 10);
  los_partition_sort_queue(p);
  if (sched) {
    sched->add(1, 2);
    sched->add(2, 2);
    sched->add(3, 1);
  }
}

void run(Cycle& cy, const los_options& o, Snap& snap, FakeScheduler& sched) {
  const los_cycle_input in{&snap.s, "test", "22.05.8", los_monotonic_us(), 0, nullptr};
  const los_cycle_ops ops = sched.ops();
  los_cycle_run(&cy.c, &o, &in, &ops);
}

WireDecision start(los::JobId job, std::vector<std::string> nodes = {}, const char* partition = "batch") {
  return {los::Decision::Kind::Start, LOS_JOB_PENDING, partition, job, std::move(nodes)};
}

TEST(PluginCycle, FallbackDecidesWhileLosdIsUnreachableAndNoJobStartsTwice) {
  const std::string path = temp_socket("cycle-nobody");
  unlink(path.c_str());
  los_options o = options_for(path);
  o.fallback = LOS_FALLBACK_FIFO;
  Cycle cy;
  FakeScheduler sched;
  {
    Snap snap;
    stale_or_fresh_snapshot(snap, &sched);
    run(cy, o, snap, sched);
  }
  EXPECT_EQ(sched.actions, (std::vector<std::string>{"start 1 on n1,n2", "start 2 on n3,n4"}));
  EXPECT_FALSE(sched.touched_unlocked);
  EXPECT_EQ(sched.locks, 1);
  ASSERT_EQ(sched.lines_with("unusable").size(), 1u);
  EXPECT_EQ(sched.lines_with("unusable")[0].rfind("E: sched/los: losd at " + path + " unusable (connect to ", 0), 0u)
      << sched.lines_with("unusable")[0];
  EXPECT_NE(sched.lines_with("unusable")[0].find("scheduling by the 'fifo' fallback until it answers again"),
            std::string::npos);
  EXPECT_EQ(sched.lines_with("by=fifo pending=3 running=0 decisions=2 started=2 skipped=0").size(), 1u);
  EXPECT_EQ(cy.c.in_fallback, 1);
  EXPECT_EQ(cy.c.fallback_started, 2u);

  // The next cycle sees the same (stale) queue: the fallback decides the same
  // starts again, and they are refused because the jobs already run.
  {
    Snap snap;
    stale_or_fresh_snapshot(snap, nullptr);
    run(cy, o, snap, sched);
  }
  EXPECT_EQ(sched.actions.size(), 2u);
  EXPECT_EQ(sched.lines_with("unusable").size(), 1u);  // said once per fallback episode
  EXPECT_EQ(sched
                .lines_with("sched/los: skipped start of JobId=1 (fallback decision, seq 2): the job is RUNNING, "
                            "the decision expected it pending")
                .size(),
            1u);
  EXPECT_EQ(sched.lines_with("seq=2 by=fifo pending=3 running=0 decisions=2 started=0 skipped=2").size(), 1u);
  EXPECT_EQ(cy.c.fallback_started, 2u);
  EXPECT_EQ(cy.c.seq, 2u);
}

// slurmctld received SIGTERM while the cycle waited for the decisions: none
// is applied (a start now would be saved as running with its launch never
// sent, and time out after the restart), each is logged as skipped.
TEST(PluginCycle, NothingIsAppliedOnceTheSchedulerIsShuttingDown) {
  const std::string path = temp_socket("cycle-shutdown");
  unlink(path.c_str());
  los_options o = options_for(path);
  o.fallback = LOS_FALLBACK_FIFO;
  Cycle cy;
  FakeScheduler sched;
  sched.shutting_down = true;
  Snap snap;
  stale_or_fresh_snapshot(snap, &sched);
  run(cy, o, snap, sched);
  EXPECT_TRUE(sched.actions.empty());
  EXPECT_FALSE(sched.touched_unlocked);
  EXPECT_EQ(sched.lines_with("the scheduler is shutting down").size(), 2u);
  EXPECT_EQ(sched.lines_with("decisions=2 started=0 skipped=2").size(), 1u);
  EXPECT_EQ(cy.c.fallback_started, 0u);
}

// While the fallback decides, its reservation for the first blocked job is
// handed to the scheduler as that job's predicted start (squeue --start):
// job 1 runs on 3 of 4 nodes until t=100, job 2 (2 nodes) waits for it.
TEST(PluginCycle, FallbackHandsItsReservedStartsToTheScheduler) {
  const std::string path = temp_socket("cycle-predict");
  unlink(path.c_str());
  los_options o = options_for(path);
  o.fallback = LOS_FALLBACK_EASY;
  Cycle cy;
  FakeScheduler sched;
  sched.want_predictions = true;
  Snap snap;
  los_partition* p = add_partition(snap.s, "batch", 4);
  add_running(p, 1, 0, 100, {0, 1, 2});
  add_pending(p, 2, 2, 60, 20);
  los_partition_sort_queue(p);
  sched.add(1, 3, LOS_JOB_RUNNING);
  sched.add(2, 2);
  run(cy, o, snap, sched);
  EXPECT_TRUE(sched.actions.empty());
  EXPECT_EQ(sched.predicted, (std::vector<std::string>{"batch:2@100 of 1"}));
  EXPECT_FALSE(sched.touched_unlocked);
}

// A partition losd cannot be sent (its name holds '@') is decided by the
// fallback in every cycle, also while losd decides the others; losd never
// hears of it (no report of its decisions).
TEST(PluginCycle, FallbackOnlyPartitionsAreDecidedByTheFallbackWhileLosdDecides) {
  const std::string path = temp_socket("cycle-local");
  FakeLosd losd(path, {start(1, {"n1", "n2"})});
  ASSERT_TRUE(losd.listening());
  los_options o = options_for(path);
  o.fallback = LOS_FALLBACK_EASY;
  Cycle cy;
  FakeScheduler sched;
  sched.want_predictions = true;
  Snap snap;
  stale_or_fresh_snapshot(snap, &sched);
  Snap local;
  los_partition* q = add_partition(local.s, "a@b", 2);
  add_running(q, 7, 0, 100, {0});
  add_pending(q, 8, 1, 60, 10);
  add_pending(q, 9, 2, 60, 5);
  los_partition_sort_queue(q);
  sched.add(7, 1, LOS_JOB_RUNNING);
  sched.add(8, 1);
  sched.add(9, 2);
  sched.jobs[8].partition = sched.jobs[9].partition = "a@b";
  const los_cycle_input in{&snap.s, "test", "22.05.8", los_monotonic_us(), 0, &local.s};
  const los_cycle_ops ops = sched.ops();
  los_cycle_run(&cy.c, &o, &in, &ops);
  los_cycle_free(&cy.c);  // closes the connection: the fake losd ends
  los_cycle_init(&cy.c);
  losd.join();
  EXPECT_EQ(sched.actions, (std::vector<std::string>{"start 1 on n1,n2", "start 8 on n2"}));
  EXPECT_EQ(sched.lines_with("by=losd pending=5 running=1 decisions=2 started=2").size(), 1u);
  EXPECT_TRUE(losd.reports.empty());
  // job 9 waits for job 7 and job 8 (both end by t=100)
  EXPECT_EQ(sched.predicted, (std::vector<std::string>{"a@b:9@100 of 1"}));
  // under los_fallback=none too: nothing else would ever start their jobs
  EXPECT_EQ(los_cycle_local_fallback(&o), LOS_FALLBACK_EASY);
  o.fallback = LOS_FALLBACK_NONE;
  EXPECT_EQ(los_cycle_local_fallback(&o), LOS_FALLBACK_EASY);
  o.fallback = LOS_FALLBACK_FIFO;
  EXPECT_EQ(los_cycle_local_fallback(&o), LOS_FALLBACK_FIFO);
}

TEST(PluginCycle, FallbackNoneLeavesTheQueueAlone) {
  const std::string path = temp_socket("cycle-none");
  unlink(path.c_str());
  los_options o = options_for(path);
  o.fallback = LOS_FALLBACK_NONE;
  Cycle cy;
  FakeScheduler sched;
  Snap snap;
  stale_or_fresh_snapshot(snap, &sched);
  run(cy, o, snap, sched);
  EXPECT_TRUE(sched.actions.empty());
  EXPECT_EQ(sched.locks, 0);  // nothing to apply: the write locks are not taken
  EXPECT_EQ(sched.lines_with("by=none pending=3 running=0 decisions=0 started=0 skipped=0").size(), 1u);
}

// losd's decisions are applied in its order, each only if it still holds;
// every refused one is logged and reported to losd with the reason.
TEST(PluginCycle, LosdDecisionsApplyInOrderAndRefusalsAreReported) {
  const std::string path = temp_socket("cycle-losd");
  std::vector<WireDecision> decisions = {
      start(9),                // unknown job
      start(1, {"n1", "n2"}),  //
      start(1, {"n3", "n4"}),  // the same job again
      {los::Decision::Kind::Suspend, LOS_JOB_RUNNING, "batch", 2, {}},
      start(3, {"n3", "n4"}),      // asks for 1 node
      start(4),                    // lives in another partition
      start(5),                    // the scheduler refuses it
      start(6),                    // held
      start(los::JobId{1} << 40),  // not a 32-bit id
  };
  FakeLosd losd(path, decisions, 5000);
  ASSERT_TRUE(losd.listening());
  los_options o = options_for(path);
  Cycle cy;
  FakeScheduler sched;
  sched.add(1, 2);
  sched.add(2, 2, LOS_JOB_RUNNING);
  sched.add(3, 1);
  sched.add(4, 1);
  sched.jobs[4].partition = "other";
  sched.add(5, 1);
  sched.jobs[5].refuse = "Slurm refused the start: Requested nodes are busy";
  sched.add(6, 1);
  sched.jobs[6].eligible = false;
  Snap snap;
  add_partition(snap.s, "batch", 4);
  run(cy, o, snap, sched);

  EXPECT_EQ(sched.actions, (std::vector<std::string>{"start 1 on n1,n2", "suspend 2"}));
  EXPECT_FALSE(sched.touched_unlocked);
  EXPECT_EQ(sched.locks, 1);
  EXPECT_TRUE(sched.lines_with("E: ").empty());
  EXPECT_EQ(cy.c.in_fallback, 0);
  EXPECT_EQ(cy.c.wakeup, 5000);
  EXPECT_EQ(sched.lines_with("I: sched/los: skipped start of JobId=9 (losd decision, seq 1): the job no longer exists")
                .size(),
            1u);
  EXPECT_EQ(sched.lines_with("by=losd pending=0 running=0 decisions=9 started=1 skipped=7").size(), 1u);

  los_cycle_free(&cy.c);  // closes the connection: the peer has read every report
  losd.join();
  EXPECT_EQ(losd.resync, (std::vector<bool>{true}));
  std::vector<std::string> reported;
  for (const auto& r : losd.reports)
    reported.push_back(std::to_string(r.kind) + " " + r.partition + " " + std::to_string(r.job) + ": " + r.detail);
  EXPECT_EQ(reported,
            (std::vector<std::string>{
                "2 batch 9: the job no longer exists",
                "2 batch 1: the job is RUNNING, the decision expected it pending",
                "2 batch 3: 2 nodes chosen but the job asks for 1",
                "2 batch 4: the job is in partition other, not batch",
                "3 batch 5: Slurm refused the start: Requested nodes are busy; left out of the queue for 30 s",
                "2 batch 6: the job is not eligible to start (held, dependency or begin time)",
                "2 batch 1099511627776: job id 1099511627776 is not a Slurm job id",
            }));
}

// A migration in flight (docs/gang-live.md): while a job the plugin
// requeued for migration has not started again, losd's suspends, resumes and
// requeues of it are no-ops (Slurm is completing it); its start goes through.
// A requeue the scheduler refuses makes the next snapshot a resync.
TEST(PluginCycle, DecisionsAboutAJobInFlightAreNoOpsAndARefusedRequeueResyncs) {
  const std::string path = temp_socket("cycle-migrate");
  std::vector<WireDecision> decisions = {
      {los::Decision::Kind::Suspend, LOS_JOB_RUNNING, "batch", 1, {}},
      {los::Decision::Kind::Requeue, LOS_JOB_RUNNING, "batch", 1, {"n2"}},
      {los::Decision::Kind::Requeue, LOS_JOB_RUNNING, "batch", 2, {"n1"}},
      start(3, {"n3"}),
  };
  FakeLosd losd(path, decisions);
  ASSERT_TRUE(losd.listening());
  los_options o = options_for(path);
  Cycle cy;
  ASSERT_EQ(los_cycle_migrated(&cy.c, 1, 1, 100), 0);  // job 1 requeued for migration at t=100
  ASSERT_EQ(los_cycle_migrated(&cy.c, 3, 1, 100), 0);  // job 3 too, pending again
  FakeScheduler sched;
  sched.add(1, 1, LOS_JOB_PENDING);  // completing after its requeue: Slurm says pending
  sched.add(2, 1, LOS_JOB_RUNNING);
  sched.jobs[2].refuse = "the job did not opt in to migration";
  sched.add(3, 1);
  Snap snap;
  add_partition(snap.s, "batch", 4);
  run(cy, o, snap, sched);
  snap.s.flags = 0;
  run(cy, o, snap, sched);
  EXPECT_EQ(sched.actions, (std::vector<std::string>{"start 3 on n3"}));
  EXPECT_TRUE(sched.lines_with("JobId=1 ").empty());  // nothing skipped or reported about job 1
  los_cycle_free(&cy.c);
  losd.join();
  EXPECT_EQ(losd.resync, (std::vector<bool>{true, true}));  // the refused requeue of job 2
  std::map<los::JobId, int> reported;
  for (const auto& r : losd.reports) ++reported[r.job];
  EXPECT_EQ(reported[2], 2);  // the refused requeue, each cycle
  EXPECT_EQ(reported.count(1), 0u);
}

// When losd answers again after a fallback episode it decides from that
// cycle on, and hears what the fallback did meanwhile.
TEST(PluginCycle, LosdAnsweringAgainEndsTheFallbackEpisode) {
  const std::string path = temp_socket("cycle-back");
  unlink(path.c_str());
  los_options o = options_for(path);
  Cycle cy;
  FakeScheduler sched;
  {
    Snap snap;
    stale_or_fresh_snapshot(snap, &sched);
    run(cy, o, snap, sched);  // nobody listens: easy starts jobs 1 and 2
  }
  ASSERT_EQ(cy.c.in_fallback, 1);
  EXPECT_EQ(sched.lines_with("by=easy").size(), 1u);

  FakeLosd losd(path, {start(3)});
  ASSERT_TRUE(losd.listening());
  cy.c.conn.next_attempt_ms = 0;  // the reconnect backoff is over
  {
    Snap snap;
    stale_or_fresh_snapshot(snap, nullptr);
    run(cy, o, snap, sched);
  }
  EXPECT_EQ(sched.actions, (std::vector<std::string>{"start 1 on n1,n2", "start 2 on n3,n4", "start 3"}));
  EXPECT_EQ(cy.c.in_fallback, 0);
  EXPECT_EQ(cy.c.wakeup, 0);  // losd set no timer
  EXPECT_EQ(sched
                .lines_with("I: sched/los: losd at " + path +
                            " answers again: it decides from now on (the easy fallback started 2 jobs meanwhile)")
                .size(),
            1u);
  EXPECT_EQ(sched.lines_with("seq=2 by=losd").size(), 1u);

  los_cycle_free(&cy.c);
  losd.join();
  EXPECT_EQ(losd.resync, (std::vector<bool>{true}));  // a new connection resynchronizes
  ASSERT_EQ(losd.reports.size(), 1u);
  EXPECT_EQ(losd.reports[0].kind, LOS_REPORT_FALLBACK);
  EXPECT_EQ(losd.reports[0].detail.rfind("the easy fallback scheduled for ", 0), 0u) << losd.reports[0].detail;
  EXPECT_NE(losd.reports[0].detail.find(" s and started 2 jobs"), std::string::npos) << losd.reports[0].detail;
}

TEST(PluginCycle, ACycleIsDueOnChangesTheIntervalAReconnectOrLosdsWakeup) {
  Cycle cy;
  cy.c.conn.next_attempt_ms = 1000;
  los_cycle_saw(&cy.c, {10, 10, 10, 0}, 20);
  EXPECT_FALSE(los_cycle_due(&cy.c, {10, 10, 10, 0}, 0, 100, 21));
  EXPECT_TRUE(los_cycle_due(&cy.c, {11, 10, 10, 0}, 0, 100, 21));      // a job changed
  EXPECT_TRUE(los_cycle_due(&cy.c, {10, 10, 12, 0}, 0, 100, 21));      // a partition changed
  EXPECT_TRUE(los_cycle_due(&cy.c, {10, 10, 10, 0}, 100, 100, 21));    // the interval passed
  EXPECT_TRUE(los_cycle_due(&cy.c, {10, 10, 10, 0}, 1000, 2000, 21));  // a reconnect to losd is due

  cy.c.wakeup = 30;  // losd's time slice ends at 30
  EXPECT_FALSE(los_cycle_due(&cy.c, {10, 10, 10, 0}, 0, 100, 29));
  EXPECT_TRUE(los_cycle_due(&cy.c, {10, 10, 10, 0}, 0, 100, 30));
  cy.c.wakeup = 0;

  // A stamp from the very second of the snapshot: a later change within that
  // second would not move it, so look once more when the second is over.
  los_cycle_saw(&cy.c, {20, 10, 10, 0}, 20);
  EXPECT_FALSE(los_cycle_due(&cy.c, {20, 10, 10, 0}, 0, 100, 20));
  EXPECT_TRUE(los_cycle_due(&cy.c, {20, 10, 10, 0}, 0, 100, 21));
  EXPECT_FALSE(los_cycle_due(&cy.c, {20, 10, 10, 0}, 0, 100, 22));  // once

  // A submission or a job's end in that same second moves the job-event
  // count: due at once, not when the second is over.
  los_cycle_saw(&cy.c, {30, 10, 10, 5}, 30);
  EXPECT_FALSE(los_cycle_due(&cy.c, {30, 10, 10, 5}, 0, 100, 30));
  EXPECT_TRUE(los_cycle_due(&cy.c, {30, 10, 10, 6}, 0, 100, 30));
}

// The per-partition values the scheduler remembers while it holds its locks
// (slurmctld: the CPUs of a partition's smallest node, for every decision's
// job size): found by partition, overwritten, and all forgotten at once.
TEST(PluginCycle, PartitionValuesAreRememberedPerPartitionUntilForgotten) {
  Cycle cy;
  int parts[20];
  uint32_t value = 7;
  EXPECT_FALSE(los_cycle_part_value(&cy.c, &parts[0], &value));
  EXPECT_EQ(value, 7u);  // untouched when none is remembered
  for (uint32_t i = 0; i < 20; ++i) ASSERT_EQ(los_cycle_remember_part_value(&cy.c, &parts[i], 100 + i), 0);
  for (uint32_t i = 0; i < 20; ++i) {
    ASSERT_TRUE(los_cycle_part_value(&cy.c, &parts[i], &value));
    EXPECT_EQ(value, 100 + i);
  }
  EXPECT_EQ(los_cycle_remember_part_value(&cy.c, &parts[3], 0), 0);  // 0 (unknown CPUs) is a value too
  ASSERT_TRUE(los_cycle_part_value(&cy.c, &parts[3], &value));
  EXPECT_EQ(value, 0u);
  EXPECT_EQ(cy.c.part_value_count, 20u);  // overwritten, not added twice
  los_cycle_forget_part_values(&cy.c);
  for (uint32_t i = 0; i < 20; ++i) EXPECT_FALSE(los_cycle_part_value(&cy.c, &parts[i], &value));
  ASSERT_EQ(los_cycle_remember_part_value(&cy.c, &parts[5], 4), 0);
  ASSERT_TRUE(los_cycle_part_value(&cy.c, &parts[5], &value));
  EXPECT_EQ(value, 4u);
}

}  // namespace
