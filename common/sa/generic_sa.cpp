#include "sa/generic_sa.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

namespace los {

Job job_in_shape(const Job& job, const Shape& shape) {
  Job shaped = job;
  shaped.size = shape.nodes;
  shaped.estimate = shape.request;
  shaped.runtime = shape.request;
  return shaped;
}

ShapeFit simulate_submission(Policy& scheduler, const Snapshot& snapshot, const Job& job) {
  Snapshot s = snapshot;
  s.queue.push_back(job);
  s.events.push_back({SnapshotEvent::Kind::Arrived, job.id, job.size, 0, job.estimate});

  // Every job runs for its full requested time (at least one second, as the
  // planner counts it); a job already past that is expected to end at once.
  const Time origin = s.now;
  const auto end_of = [origin](const RunningJob& r) {
    return std::max(r.start + std::max<Time>(r.job.estimate, 1), origin + 1);
  };
  std::set<std::pair<Time, JobId>> ends;
  for (const RunningJob& r : s.running) {
    if (!r.suspended) ends.insert({end_of(r), r.job.id});
  }

  const auto fail = [&](const std::string& what) {
    throw std::logic_error("generic SA: policy " + scheduler.name() + " at t=" + std::to_string(s.now) + ": " + what);
  };

  for (;;) {
    const StepResult step = scheduler.step(s);
    s.events.clear();
    for (const Decision& d : step.decisions) {
      if (d.kind != Decision::Kind::Start) fail("a decision other than start; only space sharing can be simulated");
      const auto it = std::find_if(s.queue.begin(), s.queue.end(), [&](const Job& q) { return q.id == d.job; });
      if (it == s.queue.end()) fail("start of job " + std::to_string(d.job) + ", which is not waiting");
      if (it->size > s.free_units) fail("start of job " + std::to_string(d.job) + " beyond the free units");
      if (d.job == job.id) return ShapeFit{s.now, s.now + job.estimate};
      RunningJob r;
      r.job = *it;
      r.start = s.now;
      s.free_units -= it->size;
      s.events.push_back({SnapshotEvent::Kind::Started, r.job.id, r.job.size, r.start, r.job.estimate});
      ends.insert({end_of(r), r.job.id});
      s.running.push_back(std::move(r));
      s.queue.erase(it);
    }

    Time next = ends.empty() ? kTimeInfinity : ends.begin()->first;
    if (step.wakeup > s.now) next = std::min(next, step.wakeup);
    if (next >= kTimeInfinity) return ShapeFit{};  // nothing will ever change: it never starts
    s.now = next;
    while (!ends.empty() && ends.begin()->first <= s.now) {
      const JobId id = ends.begin()->second;
      ends.erase(ends.begin());
      const auto r =
          std::find_if(s.running.begin(), s.running.end(), [&](const RunningJob& x) { return x.job.id == id; });
      s.free_units += r->job.size;
      s.events.push_back({SnapshotEvent::Kind::Ended, id, r->job.size, r->start, r->job.estimate});
      if (r != s.running.end() - 1) *r = std::move(s.running.back());
      s.running.pop_back();
    }
  }
}

}  // namespace los
