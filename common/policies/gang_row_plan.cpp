#include "policies/gang_row_plan.hpp"

#include <algorithm>

namespace los {

void GangRowPlan::restart(std::int64_t capacity, Time origin) {
  planner_ = Planner(capacity, origin);
  bound_.reset();
  bound_empty_ = true;
}

void GangRowPlan::validate(Time now) {
  if (bound_empty_) {
    bound_additions_ = planner_.additions();
    bound_now_ = now;
    return;
  }
  if (planner_.additions() != bound_additions_ || now < bound_now_) {
    bound_.reset();
    bound_empty_ = true;
    bound_additions_ = planner_.additions();
  }
  bound_now_ = now;
}

Time GangRowPlan::lower_bound(std::int64_t size, Time duration, Time now) {
  validate(now);
  return std::max(now, bound_.lower(size, duration));
}

Time GangRowPlan::earliest_start(std::int64_t size, Time duration, Time now) {
  const Time s = planner_.earliest_start(size, duration, lower_bound(size, duration, now));
  bound_.record(size, duration, s);
  bound_empty_ = false;
  return s;
}

}  // namespace los
