#include "policies/tabu_criteria.hpp"

#include <algorithm>

namespace los {
namespace {

// (a - b) / max(floor, a), and exactly 0 when the criterion did not change.
double relative_gain(double a, double b, double floor) {
  if (a == b) return 0;
  return (a - b) / std::max(floor, a);
}

}  // namespace

double tabu_improvement(const TabuCriteria& current, const TabuCriteria& candidate) {
  return relative_gain(current.bsd, candidate.bsd, 1.0) + relative_gain(current.wait, candidate.wait, 1e-13) +
         relative_gain(current.response, candidate.response, 1e-13) +
         relative_gain(current.fairness, candidate.fairness, 1e-13);
}

void TabuWaitingSums::add(Time submit, Time job_duration, Time start) {
  ++jobs;
  wait += start - submit;
  duration += job_duration;
  bsd += TabuScore::job_bsd(submit, job_duration, start);
}

int TabuScore::user_index(int user) {
  const auto [it, added] = user_of_id_.emplace(user, static_cast<int>(users_.size()));
  if (added) {
    users_.emplace_back();
    user_delta_.push_back(0);
  }
  return it->second;
}

double TabuScore::nuwt(const UserTotals& u, std::int64_t extra_wait) {
  return static_cast<double>(u.fixed_wait + u.planned_wait + extra_wait) / std::max(1.0, u.area);
}

double TabuScore::job_bsd(Time submit, Time duration, Time start) {
  const double response = static_cast<double>(start + duration - submit);
  return std::max(1.0, response) / static_cast<double>(std::max<Time>(1, duration));
}

void TabuScore::apply(const std::vector<TabuStartChange>& changes) {
  for (const TabuStartChange& c : changes) users_[static_cast<std::size_t>(c.user)].planned_wait += c.to - c.from;
}

TabuCriteria TabuScore::criteria(const TabuWaitingSums& waiting) const {
  TabuCriteria c;
  const double n = static_cast<double>(std::max<std::size_t>(1, waiting.jobs));
  c.wait = std::max(0.0, static_cast<double>(waiting.wait) / n);
  c.response = std::max(0.0, static_cast<double>(waiting.wait + waiting.duration) / n);
  c.bsd = std::max(1.0, waiting.bsd / n);
  if (!users_.empty()) {
    double mean = 0;
    for (const UserTotals& u : users_) mean += nuwt(u, 0);
    mean /= static_cast<double>(users_.size());
    for (const UserTotals& u : users_) c.fairness += (mean - nuwt(u, 0)) * (mean - nuwt(u, 0));
  }
  return c;
}

void TabuScore::prepare(const TabuWaitingSums& waiting) {
  wait_sum_ = waiting.wait;
  duration_sum_ = waiting.duration;
  bsd_sum_ = waiting.bsd;
  nuwt_sum_ = 0;
  for (const UserTotals& u : users_) nuwt_sum_ += nuwt(u, 0);
  current_ = criteria(waiting);
}

TabuScore::Delta TabuScore::evaluate(const std::vector<TabuStartChange>& changes, std::size_t jobs,
                                     TabuCriteria& candidate) {
  Delta d;
  for (const TabuStartChange& m : changes) {
    d.wait += m.to - m.from;
    // One division of an exact integer difference: equal and opposite
    // changes of equal jobs cancel exactly.
    d.bsd += static_cast<double>(std::max<Time>(1, m.to + m.duration - m.submit) -
                                 std::max<Time>(1, m.from + m.duration - m.submit)) /
             static_cast<double>(std::max<Time>(1, m.duration));
    if (user_delta_[static_cast<std::size_t>(m.user)] == 0) touched_.push_back(m.user);
    user_delta_[static_cast<std::size_t>(m.user)] += m.to - m.from;
  }
  // F = S2 - S1^2 / u with S1, S2 the sum of NUWT and of its squares; only
  // the users whose planned wait changed contribute to the difference.
  double ds1 = 0, ds2 = 0;
  for (const int u : touched_) {
    const std::int64_t delta = user_delta_[static_cast<std::size_t>(u)];
    user_delta_[static_cast<std::size_t>(u)] = 0;
    if (delta == 0) continue;
    const double before = nuwt(users_[static_cast<std::size_t>(u)], 0);
    const double after = nuwt(users_[static_cast<std::size_t>(u)], delta);
    ds1 += after - before;
    ds2 += after * after - before * before;
  }
  touched_.clear();
  d.nuwt_sum = ds1;
  const double n = static_cast<double>(std::max<std::size_t>(1, jobs));
  candidate = current_;
  if (d.wait != 0) {
    candidate.wait = std::max(0.0, static_cast<double>(wait_sum_ + d.wait) / n);
    candidate.response = std::max(0.0, static_cast<double>(wait_sum_ + d.wait + duration_sum_) / n);
  }
  if (d.bsd != 0) candidate.bsd = std::max(1.0, (bsd_sum_ + d.bsd) / n);
  if (ds1 != 0 || ds2 != 0) {
    const double u = static_cast<double>(users_.size());
    const double df = ds2 - (2 * nuwt_sum_ * ds1 + ds1 * ds1) / u;
    candidate.fairness = std::max(0.0, current_.fairness + df);
  }
  return d;
}

void TabuScore::accept(const std::vector<TabuStartChange>& changes, const Delta& delta, const TabuCriteria& candidate) {
  apply(changes);
  current_ = candidate;
  wait_sum_ += delta.wait;
  bsd_sum_ += delta.bsd;
  nuwt_sum_ += delta.nuwt_sum;
}

}  // namespace los
