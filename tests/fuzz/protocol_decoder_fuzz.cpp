// losd's C++ protocol decoder on arbitrary payloads. The first byte picks the
// message; the rest is its payload. A decoder may only refuse with
// DecodeError (anything else escaping is a crash here). What SNAPSHOT and
// DECISIONS accept must re-encode to the very same bytes: a decoder that
// reads a value differently from how it was sent is a silent misread.
#include <cstdint>
#include <cstdlib>
#include <span>

#include "protocol/codec.hpp"

namespace {

using namespace los::protocol;

void same_bytes(const Bytes& frame, std::span<const std::uint8_t> payload) {
  const std::span<const std::uint8_t> again = std::span<const std::uint8_t>(frame).subspan(LOS_FRAME_HEADER_SIZE);
  if (again.size() != payload.size() || !std::equal(again.begin(), again.end(), payload.begin())) std::abort();
}

void decode(std::uint8_t which, std::span<const std::uint8_t> p) {
  switch (which % 13) {
    case 0:
      same_bytes(encode(decode_snapshot(p)), p);
      break;
    case 1:
      same_bytes(encode(decode_decisions(p)), p);
      break;
    case 2:
      decode_hello(p);
      break;
    case 3:
      decode_hello_ok(p);
      break;
    case 4:
      decode_error(p);
      break;
    case 5:
      decode_report(p);
      break;
    case 6:
      decode_status(p);
      break;
    case 7:
      decode_plan(p);
      break;
    case 8:
      decode_starts(p);
      break;
    case 9:
      decode_set_policy(p);
      break;
    case 10:
      decode_set_policy_ok(p);
      break;
    case 11:
      decode_query_status(p);
      break;
    case 12:
      decode_query_partition(p);
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  try {
    decode(data[0], std::span<const std::uint8_t>(data + 1, size - 1));
  } catch (const DecodeError&) {
  }
  return 0;
}
