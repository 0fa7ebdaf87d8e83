// A moldable job's requests as users write them: "NODESxTIME", with TIME in
// any of Slurm's --time formats (sa-submit's --shape).
#pragma once

#include <string>

#include "sa/shape_selection.hpp"

namespace los {

// Seconds of a Slurm time limit: "M", "M:S", "H:M:S", "D-H", "D-H:M",
// "D-H:M:S". Throws std::invalid_argument saying what is wrong with `text`.
Time parse_slurm_time(const std::string& text);

// One request: nodes and the time limit as written (passed to sbatch as is).
struct ShapeSpec {
  Shape shape;            // nodes and the limit in seconds
  std::string time_text;  // the limit as the user wrote it
};

// "NODESxTIME", e.g. "8x30" (8 nodes, 30 minutes) or "64x1-12:00:00".
// Throws std::invalid_argument naming the text and what is wrong.
ShapeSpec parse_shape_spec(const std::string& text);

}  // namespace los
