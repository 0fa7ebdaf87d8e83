// Helpers shared by the plugin core's tests: snapshots and decision lists
// owned by the test, hand-built partitions, and Unix-socket peers standing in
// for losd.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "conn.h"
#include "options.h"
#include "protocol/codec.hpp"
#include "snapshot.h"

namespace los::plugin_test {

using los::protocol::Bytes;

// A snapshot owned by the test.
struct Snap {
  los_snapshot s{};
  Snap() = default;
  Snap(const Snap&) = delete;
  ~Snap() { los_snapshot_free(&s); }
};
struct Decs {
  los_decisions d{};
  Decs() = default;
  Decs(const Decs&) = delete;
  ~Decs() { los_decisions_free(&d); }
};

// A partition of n nodes "n1".."nN", all idle unless changed.
inline los_partition* add_partition(los_snapshot& s, const char* name, int n) {
  los_partition* p = los_snapshot_add_partition(&s, name);
  for (int i = 1; i <= n; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "n%d", i);  // (GCC 12 warns falsely on "n" + std::to_string)
    los_partition_add_node(p, name, LOS_NODE_IDLE);
  }
  return p;
}
inline void add_running(los_partition* p, std::uint64_t id, std::int64_t start, std::int64_t limit,
                        std::vector<std::uint32_t> nodes) {
  los_running* r = los_partition_add_running(p, static_cast<std::uint32_t>(nodes.size()));
  r->id = id;
  r->start = start;
  r->submit = start;
  r->limit = limit;
  r->size = static_cast<std::uint32_t>(nodes.size());
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    r->nodes[k] = nodes[k];
    p->nodes[nodes[k]].state = LOS_NODE_ALLOCATED;
  }
}
inline void add_pending(los_partition* p, std::uint64_t id, std::uint32_t size, std::int64_t limit,
                        std::uint32_t priority) {
  los_pending* j = los_partition_add_pending(p);
  j->id = id;
  j->size = size;
  j->limit = limit;
  j->priority = priority;
  j->submit = static_cast<std::int64_t>(id);
}

inline std::string temp_socket(const char* tag) {
  return (std::filesystem::temp_directory_path() /
          ("los-plugin-test-" + std::to_string(getpid()) + "-" + tag + ".sock"))
      .string();
}

inline int listen_on(const std::string& path) {
  unlink(path.c_str());
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(fd, 4) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

inline bool read_exact(int fd, std::uint8_t* p, std::size_t n) {
  while (n) {
    ssize_t r = read(fd, p, n);
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}
inline bool read_frame(int fd, Bytes& payload, los::protocol::FrameHeader& h) {
  std::uint8_t head[LOS_FRAME_HEADER_SIZE];
  if (!read_exact(fd, head, sizeof head)) return false;
  h = los::protocol::decode_header(std::span(head, sizeof head));
  payload.resize(h.payload_length);
  return read_exact(fd, payload.data(), payload.size());
}
inline void write_all(int fd, const Bytes& b) {
  std::size_t off = 0;
  while (off < b.size()) {
    ssize_t w = write(fd, b.data() + off, b.size() - off);
    if (w <= 0) return;
    off += static_cast<std::size_t>(w);
  }
}

inline los_options options_for(const std::string& path) {
  los_options o;
  los_options_default(&o);
  std::snprintf(o.socket_path, sizeof o.socket_path, "%s", path.c_str());
  o.timeout_ms = 300;
  o.reconnect_max_ms = 1000;
  return o;
}

}  // namespace los::plugin_test
