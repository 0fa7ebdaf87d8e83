// sa-submit's request shapes: NODESxTIME with Slurm's time formats.
#include "sa/shape_spec.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace los {
namespace {

TEST(ShapeSpec, SlurmTimeFormats) {
  EXPECT_EQ(parse_slurm_time("30"), 1800);           // M
  EXPECT_EQ(parse_slurm_time("1:30"), 90);           // M:S
  EXPECT_EQ(parse_slurm_time("2:00:05"), 7205);      // H:M:S
  EXPECT_EQ(parse_slurm_time("1-2"), 93600);         // D-H
  EXPECT_EQ(parse_slurm_time("1-2:30"), 95400);      // D-H:M
  EXPECT_EQ(parse_slurm_time("1-02:30:10"), 95410);  // D-H:M:S
}

TEST(ShapeSpec, BadTimesSayWhatIsWrong) {
  for (const std::string bad : {"", "0", "0:00", "a", "1:2:3:4", "-5", "1-", "1-x", "10000000000", "1.5"}) {
    EXPECT_THROW(parse_slurm_time(bad), std::invalid_argument) << bad;
  }
  try {
    parse_slurm_time("1:x");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "time '1:x': seconds 'x' is not a whole number");
  }
}

TEST(ShapeSpec, NodesTimesTime) {
  const ShapeSpec s = parse_shape_spec("8x30");
  EXPECT_EQ(s.shape.nodes, 8);
  EXPECT_EQ(s.shape.request, 1800);
  EXPECT_EQ(s.time_text, "30");
  EXPECT_EQ(parse_shape_spec("64x1-12:00:00").shape.request, 129600);
  for (const std::string bad : {"8", "x30", "0x30", "-1x30", "8x", "8x0", "8xabc", "8.5x30"}) {
    EXPECT_THROW(parse_shape_spec(bad), std::invalid_argument) << bad;
  }
  try {
    parse_shape_spec("8:30");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "shape '8:30': expected NODESxTIME, e.g. 8x30 (8 nodes, 30 minutes)");
  }
}

}  // namespace
}  // namespace los
