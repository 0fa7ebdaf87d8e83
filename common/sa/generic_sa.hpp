// Generic SA (the thesis's SAg): choosing a moldable job's shape by
// simulating the scheduler itself once per candidate.
//
// For each shape, a copy of the scheduler is fed the current snapshot with
// the job appended to the queue in that shape, and stepped through time with
// no further arrivals and every job (the candidate included) running for its
// full requested time, until the candidate starts. Its expected completion is
// that start plus its requested time; the choice follows the tie rule of
// common/sa/shape_selection.hpp. It needs no availability list and is exact
// for any space-sharing policy that can be copied, but costs one simulation
// per shape; under conservative backfilling it must agree with
// choose_shape() on the policy's availability list (the thesis's Theorem 1).
#pragma once

#include <concepts>
#include <optional>
#include <vector>

#include "model/snapshot.hpp"
#include "policy/policy.hpp"
#include "sa/shape_selection.hpp"

namespace los {

// Steps `scheduler` (a throw-away copy: it is changed) from `snapshot` with
// `job` submitted at snapshot.now, as above, and returns where `job` runs.
// kTimeInfinity if the scheduler never starts it. Throws std::logic_error if
// the scheduler issues anything but start decisions (time-sharing policies
// cannot be simulated this way) or a start the snapshot cannot hold.
ShapeFit simulate_submission(Policy& scheduler, const Snapshot& snapshot, const Job& job);

// `job` in the given shape: size = nodes, estimate = requested time, and,
// as SAg assumes for every job, run time = requested time.
Job job_in_shape(const Job& job, const Shape& shape);

// SAg: the candidate with the earliest simulated completion (tie rule of
// shape_selection.hpp), or nullopt if none ever starts. `scheduler` is the
// policy running the partition, in the state it was after its last step;
// it is copied, never changed.
template <class Scheduler>
requires std::derived_from<Scheduler, Policy> && std::copy_constructible<Scheduler> std::optional<ShapeChoice>
choose_shape_by_simulation(const Scheduler& scheduler, const Snapshot& snapshot, const Job& job,
                           const std::vector<Shape>& shapes) {
  std::vector<ShapeFit> fits;
  fits.reserve(shapes.size());
  for (const Shape& shape : shapes) {
    Scheduler copy(scheduler);
    fits.push_back(simulate_submission(copy, snapshot, job_in_shape(job, shape)));
  }
  return choose_among(shapes, fits);
}

}  // namespace los
