#include "workload/transform.hpp"

#include <algorithm>
#include <cmath>

#include "workload/sampling.hpp"

namespace los {

Time effective_runtime(const Job& job, bool kill_at_estimate) {
  return kill_at_estimate ? std::min(job.runtime, job.estimate) : job.runtime;
}

double offered_load(const Workload& w, bool kill_at_estimate) {
  if (w.jobs.size() < 2 || w.units <= 0) return 0;
  const Time span = w.jobs.back().submit - w.jobs.front().submit;
  if (span <= 0) return 0;
  double work = 0;
  for (const Job& j : w.jobs)
    work += static_cast<double>(j.size) * static_cast<double>(effective_runtime(j, kill_at_estimate));
  return work / (static_cast<double>(w.units) * static_cast<double>(span));
}

void cut_window(Workload& w, std::size_t skip, std::size_t count) {
  const std::size_t first = std::min(skip, w.jobs.size());
  const std::size_t last = count == 0 ? w.jobs.size() : std::min(w.jobs.size(), first + count);
  w.jobs.erase(w.jobs.begin() + static_cast<std::ptrdiff_t>(last), w.jobs.end());
  w.jobs.erase(w.jobs.begin(), w.jobs.begin() + static_cast<std::ptrdiff_t>(first));
}

double scale_to_load(Workload& w, double target, bool kill_at_estimate) {
  const double original = offered_load(w, kill_at_estimate);
  if (original <= 0) {
    throw WorkloadError(w.source + ": cannot rescale to load " + std::to_string(target) +
                        ": the offered load is undefined (fewer than two distinct submit times)");
  }
  const double factor = original / target;
  const Time origin = w.jobs.front().submit;
  for (Job& j : w.jobs) {
    j.submit = origin + static_cast<Time>(std::llround(static_cast<double>(j.submit - origin) * factor));
  }
  return factor;
}

void scale_runtimes(Workload& w, double factor) {
  for (Job& j : w.jobs) {
    j.runtime = static_cast<Time>(std::llround(static_cast<double>(j.runtime) * factor));
    j.estimate = std::max<Time>(1, static_cast<Time>(std::llround(static_cast<double>(j.estimate) * factor)));
  }
}

void scale_sizes(Workload& w, int units) {
  if (units <= 0 || w.units <= 0) {
    throw WorkloadError(w.source + ": cannot scale job sizes from " + std::to_string(w.units) + " to " +
                        std::to_string(units) + " units");
  }
  const double factor = static_cast<double>(units) / static_cast<double>(w.units);
  for (Job& j : w.jobs) {
    const long long scaled = std::llround(static_cast<double>(j.size) * factor);
    j.size = static_cast<int>(std::clamp<long long>(scaled, 1, units));
  }
  w.units = units;
}

void jitter_submits(Workload& w, Time max_seconds, std::uint64_t seed) {
  if (max_seconds <= 0) return;
  Random rng(seed);
  for (Job& j : w.jobs) j.submit += static_cast<Time>(rng.uniform_int(0, max_seconds - 1));
  std::stable_sort(w.jobs.begin(), w.jobs.end(), [](const Job& a, const Job& b) { return a.submit < b.submit; });
}

}  // namespace los
