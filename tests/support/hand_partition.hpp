// A partition driven by hand for the resync tests of time-sharing policies
// (tests/unit/*_resync_test.cpp): applies a policy's decisions to its
// snapshot as the simulator does (units placed where the policy says).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "policy/policy.hpp"
#include "test_support.hpp"

namespace los::test {

// At 10 on 4 units, a resync: job 1 (3 units, estimate 100) runs since 0 on
// units 0-2; job 2 (all 4 units, estimate 50) waits for it.
inline Snapshot one_running_one_blocked() {
  Snapshot s;
  s.now = 10;
  s.total_units = 4;
  s.free_units = 1;
  s.running.push_back(RunningJob{job(1, 0, 3, 100), 0, false, {0, 1, 2}});
  s.queue.push_back(job(2, 5, 4, 50));
  s.resync = true;
  return s;
}

struct Machine {
  Snapshot s;

  explicit Machine(int units) {
    s.total_units = units;
    s.free_units = units;
  }
  void arrive(const Job& j) {
    s.queue.push_back(j);
    s.events.push_back({SnapshotEvent::Kind::Arrived, j.id, j.size, 0, j.estimate});
  }
  RunningJob& running(JobId id) {
    for (RunningJob& r : s.running) {
      if (r.job.id == id) return r;
    }
    throw std::out_of_range("job " + std::to_string(id) + " is not running");
  }
  void end(JobId id) {
    const RunningJob r = running(id);
    if (!r.suspended) s.free_units += r.job.size;
    std::erase_if(s.running, [&](const RunningJob& x) { return x.job.id == id; });
    s.events.push_back({SnapshotEvent::Kind::Ended, id, r.job.size, r.start, r.job.estimate});
  }
  StepResult step(Policy& p, Time now) {
    s.now = now;
    const StepResult result = p.step(s);
    s.events.clear();
    s.resync = false;
    for (const Decision& d : result.decisions) {
      switch (d.kind) {
        case Decision::Kind::Start: {
          const auto it = std::find_if(s.queue.begin(), s.queue.end(), [&](const Job& j) { return j.id == d.job; });
          EXPECT_NE(it, s.queue.end()) << "start of job " << d.job << " that is not waiting";
          if (it == s.queue.end()) break;
          RunningJob r;
          r.job = *it;
          r.start = now;
          r.nodes = d.nodes;
          s.free_units -= r.job.size;
          s.running.push_back(r);
          s.queue.erase(it);
          s.events.push_back({SnapshotEvent::Kind::Started, d.job, r.job.size, now, r.job.estimate});
          break;
        }
        case Decision::Kind::Suspend: {
          RunningJob& r = running(d.job);
          EXPECT_FALSE(r.suspended) << "job " << d.job;
          r.suspended = true;
          s.free_units += r.job.size;
          break;
        }
        case Decision::Kind::Resume: {
          RunningJob& r = running(d.job);
          EXPECT_TRUE(r.suspended) << "job " << d.job;
          r.suspended = false;
          if (!d.nodes.empty()) r.nodes = d.nodes;
          s.free_units -= r.job.size;
          break;
        }
        case Decision::Kind::Requeue:
          ADD_FAILURE() << "unexpected requeue";
          break;
      }
    }
    EXPECT_GE(s.free_units, 0);
    return result;
  }
  // What a fresh policy gets: the snapshot alone (at `now`, else the
  // snapshot's own time).
  Snapshot resync_snapshot(std::optional<Time> now = std::nullopt) const {
    Snapshot r = s;
    if (now) r.now = *now;
    r.events.clear();
    r.resync = true;
    return r;
  }
};

}  // namespace los::test
