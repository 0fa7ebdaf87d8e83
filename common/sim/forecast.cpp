#include "sim/forecast.hpp"

#include <algorithm>
#include <chrono>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "policy/registry.hpp"

namespace los {
namespace {

struct Progress {
  Time end = 0;        // executing: when it ends
  Time remaining = 0;  // suspended: work left
  bool suspended = false;
};

std::string what(const Policy& policy, Time now, JobId id) {
  return "forecast: policy " + policy.name() + " at t=" + std::to_string(now) + ", job " + std::to_string(id);
}

}  // namespace

std::vector<Time> forecast_starts(const Snapshot& snapshot, const std::string& policy_spec,
                                  const ForecastOptions& options) {
  const PolicyPtr policy = make_policy(policy_spec, options.mode);
  return forecast_starts(snapshot, *policy, options);
}

std::vector<Time> forecast_starts(const Snapshot& snapshot, Policy& policy, const ForecastOptions& options) {
  std::vector<Time> starts(snapshot.queue.size(), kTimeInfinity);
  std::unordered_map<JobId, std::size_t> slot;  // queue index in the caller's snapshot
  slot.reserve(snapshot.queue.size());
  for (std::size_t i = 0; i < snapshot.queue.size(); ++i) slot[snapshot.queue[i].id] = i;

  Snapshot s = snapshot;
  s.events.clear();
  begin_from_snapshot(s, policy);
  std::unordered_map<JobId, Progress> progress;
  std::set<std::pair<Time, JobId>> ends;
  for (const RunningJob& r : s.running) {
    Progress p;
    p.suspended = r.suspended;
    p.end = r.expected_end(s.now);
    p.remaining = std::max<Time>(1, r.start + r.job.estimate - s.now);
    progress[r.job.id] = p;
    if (!p.suspended) ends.insert({p.end, r.job.id});
  }
  const Time limit = s.now > kTimeInfinity - options.horizon ? kTimeInfinity : s.now + options.horizon;

  using Kind = SnapshotEvent::Kind;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                             std::chrono::duration<double>(options.max_seconds));
  for (std::size_t step = 0; step < options.max_steps && !s.queue.empty(); ++step) {
    if (std::chrono::steady_clock::now() > deadline) break;
    const StepResult result = policy.step(s);
    s.events.clear();
    s.resync = false;
    bool started = false;
    for (const Decision& d : result.decisions) {
      switch (d.kind) {
        case Decision::Kind::Start: {
          const auto it = std::find_if(s.queue.begin(), s.queue.end(), [&](const Job& j) { return j.id == d.job; });
          if (it == s.queue.end() || it->size < 0) {
            throw std::logic_error(what(policy, s.now, d.job) + ": start of a job not waiting");
          }
          if (it->size > s.free_units) {
            throw std::logic_error(what(policy, s.now, d.job) + ": start needs " + std::to_string(it->size) +
                                   " units, " + std::to_string(s.free_units) + " free");
          }
          const auto at = slot.find(d.job);
          if (at != slot.end() && starts[at->second] == kTimeInfinity) starts[at->second] = s.now;
          RunningJob r;
          r.job = *it;
          r.start = s.now;
          r.nodes = d.nodes;
          s.free_units -= it->size;
          const Time end = s.now + std::max<Time>(1, it->estimate);
          progress[d.job] = Progress{end, 0, false};
          ends.insert({end, d.job});
          s.events.push_back({Kind::Started, d.job, it->size, s.now, it->estimate});
          s.running.push_back(std::move(r));
          it->size = -it->size;  // marks it started; erased below
          started = true;
          break;
        }
        case Decision::Kind::Suspend:
        case Decision::Kind::Resume:
        case Decision::Kind::Requeue: {
          const auto run =
              std::find_if(s.running.begin(), s.running.end(), [&](const RunningJob& r) { return r.job.id == d.job; });
          if (run == s.running.end()) throw std::logic_error(what(policy, s.now, d.job) + ": job is not running");
          Progress& p = progress.at(d.job);
          const int size = run->job.size;
          if (d.kind == Decision::Kind::Suspend && !p.suspended) {
            ends.erase({p.end, d.job});
            p.remaining = std::max<Time>(1, p.end - s.now);
            p.suspended = true;
            run->suspended = true;
            s.free_units += size;
            s.events.push_back({Kind::Suspended, d.job, size, run->start, run->job.estimate});
          } else if (d.kind == Decision::Kind::Resume && p.suspended) {
            if (size > s.free_units) throw std::logic_error(what(policy, s.now, d.job) + ": resume does not fit");
            p.end = s.now + p.remaining + d.overhead;
            p.suspended = false;
            run->suspended = false;
            ends.insert({p.end, d.job});
            s.free_units -= size;
            s.events.push_back({Kind::Resumed, d.job, size, run->start, run->job.estimate});
          } else if (d.kind == Decision::Kind::Requeue) {
            if (!p.suspended) {
              ends.erase({p.end, d.job});
              s.free_units += size;
            }
            s.events.push_back({Kind::Ended, d.job, size, run->start, run->job.estimate});
            Job back = run->job;
            s.running.erase(run);
            progress.erase(d.job);
            const auto pos = std::upper_bound(s.queue.begin(), s.queue.end(), back,
                                              [](const Job& a, const Job& b) { return a.submit < b.submit; });
            s.queue.insert(pos, back);
            s.events.push_back({Kind::Arrived, back.id, back.size, 0, back.estimate});
          }
          break;
        }
      }
    }
    if (started) erase_if(s.queue, [](const Job& j) { return j.size < 0; });
    if (s.queue.empty()) break;

    Time next = ends.empty() ? kTimeInfinity : ends.begin()->first;
    if (result.wakeup > s.now) next = std::min(next, result.wakeup);
    if (next >= limit) break;
    s.now = next;
    while (!ends.empty() && ends.begin()->first <= s.now) {
      const JobId id = ends.begin()->second;
      ends.erase(ends.begin());
      const auto run =
          std::find_if(s.running.begin(), s.running.end(), [&](const RunningJob& r) { return r.job.id == id; });
      s.free_units += run->job.size;
      s.events.push_back({Kind::Ended, id, run->job.size, run->start, run->job.estimate});
      progress.erase(id);
      *run = std::move(s.running.back());
      s.running.pop_back();
    }
  }
  return starts;
}

}  // namespace los
