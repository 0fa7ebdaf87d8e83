// The SWF reader from a file (read_swf: the path los-sim and the trace tests
// take, gzip detected by content). The first input byte picks how the rest
// is stored: bit 0 set, gzip-compressed (so the fuzzer reaches the text
// behind a valid gzip stream); clear, as is (plain text, or gzip bytes the
// fuzzer mutated). Bit 1 picks the machine size: the header's, or 64. The
// file is an in-memory file (memfd) read by its /proc path. read_swf may
// only refuse with WorkloadError; what it accepts holds swf_checks.hpp.
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "mem_file.hpp"
#include "swf_checks.hpp"

namespace {

std::vector<std::uint8_t> gzip(const std::uint8_t* data, std::size_t size) {
  z_stream z{};
  if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  std::vector<std::uint8_t> out(deflateBound(&z, size) + 32);
  z.next_in = const_cast<std::uint8_t*>(data);
  z.avail_in = static_cast<uInt>(size);
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool compress = data[0] & 1;
  los::SwfReadOptions options;
  options.units = data[0] & 2 ? 64 : 0;
  const std::vector<std::uint8_t> bytes =
      compress ? gzip(data + 1, size - 1) : std::vector<std::uint8_t>(data + 1, data + size);
  const los::fuzz::MemFile file(bytes.data(), bytes.size());
  try {
    los::fuzz::check_workload(los::read_swf(file.path(), options));
  } catch (const los::WorkloadError&) {
  }
  return 0;
}
