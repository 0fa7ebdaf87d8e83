#include "sa/shape_selection.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace los {

Time earliest_fit(const std::vector<AvailabilitySlot>& slots, std::int64_t nodes, Time duration, Time not_before) {
  // Walk maximal runs of consecutive slots with free >= nodes; a run admits
  // the job iff it is at least `duration` long, and then its (clipped) start
  // is the earliest start inside it. Runs are met in time order, so the first
  // admitting run gives the first fit.
  Time run_start = kTimeInfinity;  // kTimeInfinity: not inside a run
  for (const AvailabilitySlot& s : slots) {
    if (s.end <= not_before) continue;
    if (s.free < nodes) {
      run_start = kTimeInfinity;
      continue;
    }
    if (run_start == kTimeInfinity) run_start = std::max(s.start, not_before);
    if (s.end >= kTimeInfinity || s.end - run_start >= duration) return run_start;
  }
  return kTimeInfinity;
}

std::vector<ShapeFit> fit_shapes(const std::vector<AvailabilitySlot>& slots, const std::vector<Shape>& shapes,
                                 Time now) {
  std::vector<ShapeFit> fits;
  fits.reserve(shapes.size());
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const Shape& s = shapes[i];
    if (s.nodes < 1 || s.request < 1) {
      throw std::invalid_argument("shape " + std::to_string(i) + " (" + std::to_string(s.nodes) + " nodes, " +
                                  std::to_string(s.request) + " s): nodes and requested time must be >= 1");
    }
    ShapeFit f;
    f.start = earliest_fit(slots, s.nodes, s.request, now);
    if (f.start < kTimeInfinity) f.completion = f.start + s.request;
    fits.push_back(f);
  }
  return fits;
}

bool shape_preferred(const Shape& a, const ShapeFit& fa, std::size_t ia, const Shape& b, const ShapeFit& fb,
                     std::size_t ib) {
  if (fa.completion != fb.completion) return fa.completion < fb.completion;
  const auto work = [](const Shape& s) { return static_cast<double>(s.nodes) * static_cast<double>(s.request); };
  if (work(a) != work(b)) return work(a) < work(b);
  if (a.nodes != b.nodes) return a.nodes < b.nodes;
  return ia < ib;
}

std::optional<ShapeChoice> choose_among(const std::vector<Shape>& shapes, const std::vector<ShapeFit>& fits) {
  if (shapes.empty()) throw std::invalid_argument("SA: no candidate shapes");
  if (fits.size() != shapes.size()) {
    throw std::invalid_argument("SA: " + std::to_string(fits.size()) + " fits for " + std::to_string(shapes.size()) +
                                " shapes");
  }
  std::optional<ShapeChoice> best;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    if (fits[i].start >= kTimeInfinity) continue;
    if (!best || shape_preferred(shapes[i], fits[i], i, shapes[best->index], best->fit, best->index)) {
      best = ShapeChoice{i, fits[i]};
    }
  }
  return best;
}

std::optional<ShapeChoice> choose_shape(const std::vector<AvailabilitySlot>& slots, const std::vector<Shape>& shapes,
                                        Time now) {
  if (shapes.empty()) throw std::invalid_argument("SA: no candidate shapes");
  return choose_among(shapes, fit_shapes(slots, shapes, now));
}

}  // namespace los
