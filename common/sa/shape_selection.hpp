// SA (Cirne's Supercomputer AppLeS) over an availability list: choosing the
// request shape of a moldable job.
//
// A moldable job offers several requests (nodes, requested time); SA submits
// the one with the earliest expected completion, reading the partition's
// availability list and assuming, as the thesis does, that every job runs for
// its full requested time. Under conservative backfilling each candidate would
// start at its first fit in that list, so the choice is exact there (the
// thesis's Theorem 1; common/sa/generic_sa.hpp is the check). Under other
// policies it is a heuristic.
//
// First fit is computed per request (docs/specs: the thesis's Fig. 5
// pseudo-code sizes its window by the free units of the slot, not by the
// request, and so can miss a narrower request's earliest fit).
//
// Tie rule (the thesis gives none): the earliest completion; then the least
// requested work nodes x time; then the fewest nodes; then the lowest index
// in the candidate list. Deterministic, and on a full tie it keeps the
// request listed first (callers that want the user's own request kept on a
// tie list it first).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "planner/planner.hpp"

namespace los {

// One request a moldable job can be submitted with.
struct Shape {
  int nodes = 0;
  Time request = 0;  // requested time (the kill limit), seconds, >= 1
};

// Where a shape would run: its first fit and expected completion.
struct ShapeFit {
  Time start = kTimeInfinity;
  Time completion = kTimeInfinity;  // start + request; kTimeInfinity if it never fits
};

struct ShapeChoice {
  std::size_t index = 0;  // into the candidate list
  ShapeFit fit;
};

// Earliest t >= not_before with free >= nodes throughout [t, t + duration),
// on an availability list (sorted, contiguous slots, the last ending at
// kTimeInfinity, as Planner::slots() returns). kTimeInfinity if no such t
// (more nodes than the list ever has free). O(slots).
Time earliest_fit(const std::vector<AvailabilitySlot>& slots, std::int64_t nodes, Time duration, Time not_before);

// The first fit of every shape, in candidate order. Throws
// std::invalid_argument naming the shape if nodes < 1 or request < 1.
std::vector<ShapeFit> fit_shapes(const std::vector<AvailabilitySlot>& slots, const std::vector<Shape>& shapes,
                                 Time now);

// The tie rule above as an order: true if shape a (candidate index ia,
// fitted fa) is to be preferred over shape b (index ib, fitted fb).
bool shape_preferred(const Shape& a, const ShapeFit& fa, std::size_t ia, const Shape& b, const ShapeFit& fb,
                     std::size_t ib);

// The tie-rule winner among already fitted shapes (fits[i] belongs to
// shapes[i]); nullopt if none fits. Throws std::invalid_argument on an empty
// list or mismatched sizes.
std::optional<ShapeChoice> choose_among(const std::vector<Shape>& shapes, const std::vector<ShapeFit>& fits);

// SA's choice: the shape with the earliest expected completion (tie rule
// above), or nullopt if no shape ever fits. Throws std::invalid_argument on
// an empty candidate list or a malformed shape.
std::optional<ShapeChoice> choose_shape(const std::vector<AvailabilitySlot>& slots, const std::vector<Shape>& shapes,
                                        Time now);

}  // namespace los
