// The plugin's C decoder and losd's C++ decoder agree (issue 19): the same
// bytes decode to the same message in both, or both refuse.
// The three inputs they disagreed on: a negative wake-up other than -1, job
// ids >= 2^63, empty node names (docs/protocol.md gives the rules).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "codec.h"
#include "protocol/codec.hpp"
#include "snapshot.h"

#include "plugin_test_support.hpp"

namespace {

using namespace los::plugin_test;

// A DECISIONS payload with one START decision, written byte by byte so it
// can hold values the C++ encoder would never produce.
Bytes payload(std::int64_t wakeup, std::uint64_t job, const std::vector<std::string>& nodes) {
  Bytes b;
  auto put = [&b](std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  };
  auto str = [&](const std::string& s) {
    put(s.size(), 2);
    b.insert(b.end(), s.begin(), s.end());
  };
  put(9, 8);                                   // seq
  put(static_cast<std::uint64_t>(wakeup), 8);  // wakeup
  put(1, 4);                                   // one decision
  put(LOS_DECIDE_START, 1);
  put(LOS_JOB_PENDING, 1);
  str("batch");
  put(job, 8);
  put(nodes.size(), 4);
  for (const std::string& n : nodes) str(n);
  return b;
}

struct Verdicts {
  bool c_ok;
  bool cpp_ok;
  std::string c_error, cpp_error;
};

// Decodes with both; when both accept, checks they read the same message.
Verdicts decode_both(const Bytes& p) {
  Verdicts v{};
  Decs d;
  char err[256] = "";
  v.c_ok = los_decode_decisions(p.data(), p.size(), &d.d, err, sizeof err) == 0;
  v.c_error = err;
  try {
    const los::protocol::DecisionsMessage m = los::protocol::decode_decisions(p);
    v.cpp_ok = true;
    if (v.c_ok) {
      EXPECT_EQ(d.d.seq, m.seq);
      EXPECT_EQ(d.d.wakeup, m.wakeup == los::kTimeInfinity ? LOS_START_UNKNOWN : m.wakeup);
      EXPECT_EQ(d.d.count, m.decisions.size());
      if (d.d.count == 1 && m.decisions.size() == 1) {
        EXPECT_EQ(d.d.items[0].job, static_cast<std::uint64_t>(m.decisions[0].job));
        EXPECT_EQ(d.d.items[0].node_count, m.decisions[0].nodes.size());
      }
    }
  } catch (const los::protocol::DecodeError& e) {
    v.cpp_ok = false;
    v.cpp_error = e.what();
  }
  return v;
}

void expect_both(const Bytes& p, bool accepted, const std::string& what) {
  const Verdicts v = decode_both(p);
  EXPECT_EQ(v.c_ok, accepted) << what << ": C decoder: " << v.c_error;
  EXPECT_EQ(v.cpp_ok, accepted) << what << ": C++ decoder: " << v.cpp_error;
  if (!accepted) {
    EXPECT_NE(v.c_error, "") << what;
    EXPECT_NE(v.cpp_error, "") << what;
  }
}

TEST(PluginCodecAgreement, WakeupIsMinusOneOrABoundedTime) {
  expect_both(payload(-1, 5, {}), true, "wakeup -1 (no timer)");
  expect_both(payload(0, 5, {}), true, "wakeup 0");
  expect_both(payload(1700000000, 5, {}), true, "wakeup now-ish");
  expect_both(payload(LOS_TIME_MAX, 5, {}), true, "wakeup 2^50");
  expect_both(payload(-2, 5, {}), false, "wakeup -2");
  expect_both(payload(INT64_MIN, 5, {}), false, "wakeup INT64_MIN");
  expect_both(payload(LOS_TIME_MAX + 1, 5, {}), false, "wakeup 2^50 + 1");
  expect_both(payload(INT64_MAX, 5, {}), false, "wakeup INT64_MAX");
  const Verdicts v = decode_both(payload(-7, 5, {}));
  EXPECT_NE(v.c_error.find("wakeup -7"), std::string::npos) << v.c_error;
}

TEST(PluginCodecAgreement, JobIdsFitASigned64BitInteger) {
  expect_both(payload(-1, 0, {}), true, "job 0");
  expect_both(payload(-1, INT64_MAX, {}), true, "job 2^63 - 1");
  expect_both(payload(-1, std::uint64_t{1} << 63, {}), false, "job 2^63");
  expect_both(payload(-1, UINT64_MAX, {}), false, "job 2^64 - 1");
  const Verdicts v = decode_both(payload(-1, UINT64_MAX, {}));
  EXPECT_NE(v.c_error.find("job id 18446744073709551615"), std::string::npos) << v.c_error;
}

TEST(PluginCodecAgreement, NodeNamesAreNotEmpty) {
  expect_both(payload(-1, 5, {"n1", "n2"}), true, "two named nodes");
  expect_both(payload(-1, 5, {""}), false, "one empty node name");
  expect_both(payload(-1, 5, {"n1", ""}), false, "an empty second node name");
}

TEST(PluginCodecAgreement, NamesHoldNoNulByte) {
  // Found by the decisions_differential fuzz target: the C decoder cut
  // "n\0x" to "n", the C++ one kept three bytes.
  expect_both(payload(-1, 5, {std::string("n\0x", 3)}), false, "a node name with a NUL byte");
  expect_both(payload(-1, 5, {std::string(2, '\0')}), false, "a node name of NUL bytes");
  Bytes p = payload(-1, 5, {});
  p[8 + 8 + 4 + 2 + 2 + 1] = 0;  // "batch" -> "b\0tch"
  expect_both(p, false, "a partition name with a NUL byte");
}

// Found by the codec_differential fuzz target: an ERROR payload with bytes
// after the message, which the C decoder read and the C++ one refused.
TEST(PluginCodecAgreement, ErrorWithTrailingBytes) {
  los::protocol::ErrorReply e;
  e.code = LOS_ERR_INTERNAL;
  e.message = "boom";
  Bytes frame = los::protocol::encode(e, 1);
  Bytes p(frame.begin() + LOS_FRAME_HEADER_SIZE, frame.end());
  char err[256] = "";
  EXPECT_EQ(los_decode_error(p.data(), p.size(), err, sizeof err), 0) << err;
  EXPECT_NO_THROW(los::protocol::decode_error(p));
  p.push_back(0);
  EXPECT_NE(los_decode_error(p.data(), p.size(), err, sizeof err), 0);
  EXPECT_THROW(los::protocol::decode_error(p), los::protocol::DecodeError);
}

// STARTS (the plugin reads it for squeue's expected start): the C decoder
// applies the C++ decoder's rules (found reading both while fixing the above).
TEST(PluginCodecAgreement, StartsFollowLosdsRules) {
  auto verdicts = [](const los::protocol::PredictedStart& s, std::size_t patch_at = 0, std::uint8_t patch = 0) {
    Bytes frame = los::protocol::encode(std::vector<los::protocol::PredictedStart>{s}, 1);
    Bytes p(frame.begin() + LOS_FRAME_HEADER_SIZE, frame.end());
    if (patch_at) p[patch_at] = patch;
    los_predictions c{};
    char err[256] = "";
    const bool c_ok = los_decode_starts(p.data(), p.size(), &c, err, sizeof err) == 0;
    los_predictions_free(&c);
    bool cpp_ok = true;
    try {
      los::protocol::decode_starts(p);
    } catch (const los::protocol::DecodeError&) {
      cpp_ok = false;
    }
    return std::pair{c_ok, cpp_ok};
  };
  los::protocol::PredictedStart s;
  s.partition = "batch";
  s.job = 7;
  s.size = 2;
  s.start = 100;
  EXPECT_EQ(verdicts(s), std::pair(true, true));
  // count(4) + name length(2): "batch" -> "b\0tch"
  EXPECT_EQ(verdicts(s, 4 + 2 + 1, 0), std::pair(false, false)) << "NUL in the partition name";
  const std::size_t job_top = 4 + 2 + 5 + 7, user_top = job_top + 4, size_top = user_top + 4, start_top = size_top + 16;
  EXPECT_EQ(verdicts(s, job_top, 0x80), std::pair(false, false)) << "job id 2^63";
  EXPECT_EQ(verdicts(s, user_top, 0x80), std::pair(false, false)) << "user 2^31";
  EXPECT_EQ(verdicts(s, size_top, 0x80), std::pair(false, false)) << "size 2^31";
  EXPECT_EQ(verdicts(s, start_top, 0x80), std::pair(false, false)) << "start negative, not -1";
  s.start = los::kTimeInfinity;
  EXPECT_EQ(verdicts(s), std::pair(true, true)) << "start unknown (-1)";
}

TEST(PluginCodecAgreement, LosdNeverSendsAWakeupThePluginRefuses) {
  los::protocol::DecisionsMessage m;
  m.wakeup = los::kTimeMax + 1;  // a policy's timer far in the future: no timer
  const Bytes frame = los::protocol::encode(m, 1);
  Decs d;
  char err[256] = "";
  ASSERT_EQ(los_decode_decisions(frame.data() + LOS_FRAME_HEADER_SIZE, frame.size() - LOS_FRAME_HEADER_SIZE, &d.d, err,
                                 sizeof err),
            0)
      << err;
  EXPECT_EQ(d.d.wakeup, LOS_START_UNKNOWN);
}

}  // namespace
