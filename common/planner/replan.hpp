// Re-planning the holders of reservations after a rebuild.
//
// A policy whose reservations are promises (conservative backfilling, tabu)
// rebuilds its plan from the snapshot when the events do not explain it. The
// jobs that held reservations are re-planned first, in their old order, so
// the order of the promises survives; the policy's queue pass then plans the
// jobs that held none (new arrivals) after them. Holders that left the queue
// meanwhile (started, withdrawn) are dropped.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "model/job.hpp"

namespace los {

struct QueuedHolder {
  std::size_t holder;  // index in the old order
  const Job* job;      // the holder in the snapshot's queue
};

// The holders still in `queue`, in the order of `holders`.
std::vector<QueuedHolder> queued_holders(const std::vector<JobId>& holders, std::span<const Job> queue);

}  // namespace los
