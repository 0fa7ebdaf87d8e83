// The Slurm-independent core of sched/los: its C encoder against losd's C++
// decoder (and back), the option parser, the fallback schedulers on
// hand-computed queues, and the connection against a real socket peer that
// is down, silent or speaks garbage.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "codec.h"
#include "conn.h"
#include "fallback.h"
#include "options.h"
#include "snapshot.h"
#include "protocol/codec.hpp"

namespace {

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
los_partition* add_partition(los_snapshot& s, const char* name, int n) {
  los_partition* p = los_snapshot_add_partition(&s, name);
  for (int i = 1; i <= n; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "n%d", i);  // (GCC 12 warns falsely on "n" + std::to_string)
    los_partition_add_node(p, name, LOS_NODE_IDLE);
  }
  return p;
}
void add_running(los_partition* p, std::uint64_t id, std::int64_t start, std::int64_t limit,
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
void add_pending(los_partition* p, std::uint64_t id, std::uint32_t size, std::int64_t limit, std::uint32_t priority) {
  los_pending* j = los_partition_add_pending(p);
  j->id = id;
  j->size = size;
  j->limit = limit;
  j->priority = priority;
  j->submit = static_cast<std::int64_t>(id);
}

// The started jobs of a decision list, in order, as "id:size".
std::vector<std::string> starts(const los_decisions& d) {
  std::vector<std::string> out;
  for (std::uint32_t i = 0; i < d.count; ++i) {
    EXPECT_EQ(d.items[i].kind, LOS_DECIDE_START);
    out.push_back(std::to_string(d.items[i].job) + ":" + std::to_string(d.items[i].node_count));
  }
  return out;
}

TEST(PluginCore, SnapshotEncodingDecodesInLosd) {
  Snap snap;
  snap.s.seq = 42;
  snap.s.now = 1000;
  snap.s.flags = LOS_SNAPSHOT_RESYNC;
  los_partition* p = add_partition(snap.s, "batch", 4);
  p->nodes[3].state = LOS_NODE_DRAINED;
  add_running(p, 7, 900, 600, {0, 1});
  add_pending(p, 9, 1, 60, 5);
  add_pending(p, 8, 2, 120, 10);
  los_partition_sort_queue(p);

  los_buf buf{};
  ASSERT_EQ(los_encode_snapshot(&buf, 3, &snap.s), 0);
  const Bytes frame(buf.data, buf.data + buf.len);
  los_buf_free(&buf);
  const auto h = los::protocol::decode_header(frame);
  EXPECT_EQ(h.type, LOS_MSG_SNAPSHOT);
  EXPECT_EQ(h.request_id, 3u);
  ASSERT_EQ(h.payload_length, frame.size() - LOS_FRAME_HEADER_SIZE);
  const auto m = los::protocol::decode_snapshot(std::span(frame).subspan(LOS_FRAME_HEADER_SIZE));
  EXPECT_EQ(m.seq, 42u);
  EXPECT_EQ(m.now, 1000);
  EXPECT_TRUE(m.resync);
  ASSERT_EQ(m.partitions.size(), 1u);
  const los::Snapshot& s = m.partitions[0];
  EXPECT_EQ(s.partition, "batch");
  ASSERT_EQ(s.nodes.size(), 4u);
  EXPECT_EQ(s.total_units, 3);  // one drained
  EXPECT_EQ(s.free_units, 1);   // 3 usable - 2 running
  ASSERT_EQ(s.running.size(), 1u);
  EXPECT_EQ(s.running[0].job.id, 7);
  EXPECT_EQ(s.running[0].nodes, (std::vector<int>{0, 1}));
  ASSERT_EQ(s.queue.size(), 2u);
  EXPECT_EQ(s.queue[0].id, 8);  // higher priority first
  EXPECT_EQ(s.queue[1].id, 9);
  EXPECT_EQ(s.queue[0].estimate, 120);
}

TEST(PluginCore, DecisionsFromLosdDecode) {
  los::protocol::DecisionsMessage m;
  m.seq = 5;
  m.wakeup = 1234;  // a time slice ends: the plugin must send a snapshot by then
  m.decisions.push_back({los::Decision::Kind::Start, LOS_JOB_PENDING, "batch", 12, {"n3", "n4"}});
  m.decisions.push_back({los::Decision::Kind::Suspend, LOS_JOB_RUNNING, "gang", 13, {}});
  const Bytes frame = los::protocol::encode(m, 1);
  Decs d;
  char err[256] = "";
  ASSERT_EQ(los_decode_decisions(frame.data() + LOS_FRAME_HEADER_SIZE, frame.size() - LOS_FRAME_HEADER_SIZE, &d.d,
                                 err, sizeof err),
            0)
      << err;
  EXPECT_EQ(d.d.seq, 5u);
  EXPECT_EQ(d.d.wakeup, 1234);
  ASSERT_EQ(d.d.count, 2u);
  EXPECT_EQ(d.d.items[0].job, 12u);
  EXPECT_STREQ(d.d.items[0].partition, "batch");
  ASSERT_EQ(d.d.items[0].node_count, 2u);
  EXPECT_STREQ(d.d.items[0].nodes[1], "n4");
  EXPECT_EQ(d.d.items[1].kind, LOS_DECIDE_SUSPEND);
  EXPECT_EQ(d.d.items[1].expected, LOS_JOB_RUNNING);
}

TEST(PluginCore, GarbageDecisionsAreRefusedWithAReason) {
  los::protocol::DecisionsMessage m;
  m.seq = 5;
  m.decisions.push_back({los::Decision::Kind::Start, LOS_JOB_PENDING, "batch", 12, {"n3"}});
  const Bytes frame = los::protocol::encode(m, 1);
  const std::uint8_t* payload = frame.data() + LOS_FRAME_HEADER_SIZE;
  const std::size_t len = frame.size() - LOS_FRAME_HEADER_SIZE;
  for (std::size_t cut = 0; cut < len; ++cut) {  // every truncation fails
    Decs d;
    char err[256] = "";
    EXPECT_EQ(los_decode_decisions(payload, cut, &d.d, err, sizeof err), -1) << "cut at " << cut;
    EXPECT_NE(std::string(err), "");
  }
  Bytes extra(payload, payload + len);
  extra.push_back(0);
  Decs d;
  char err[256] = "";
  EXPECT_EQ(los_decode_decisions(extra.data(), extra.size(), &d.d, err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("unexpected bytes"), std::string::npos);
  Bytes bad_kind(payload, payload + len);
  bad_kind[20] = 9;  // first decision's kind: after seq (8), wakeup (8) and the count (4)
  Decs d2;
  EXPECT_EQ(los_decode_decisions(bad_kind.data(), bad_kind.size(), &d2.d, err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("unknown kind"), std::string::npos);
}

TEST(PluginCore, OptionsParseAndRejectBadValues) {
  los_options o;
  los_options_default(&o);
  EXPECT_STREQ(o.socket_path, "/run/los/plugin.sock");
  EXPECT_EQ(o.timeout_ms, 1000);
  EXPECT_EQ(o.fallback, LOS_FALLBACK_EASY);
  EXPECT_EQ(o.has_sched_interval_off, 0);
  char err[256] = "";
  ASSERT_EQ(los_options_parse("bf_interval=30,sched_interval=-1,los_socket=/tmp/x.sock,los_timeout_ms=250,"
                              "los_fallback=fifo,los_interval=5,los_poll_ms=50,los_reconnect_max_ms=2000",
                              &o, err, sizeof err),
            0)
      << err;
  EXPECT_STREQ(o.socket_path, "/tmp/x.sock");
  EXPECT_EQ(o.timeout_ms, 250);
  EXPECT_EQ(o.fallback, LOS_FALLBACK_FIFO);
  EXPECT_EQ(o.interval_s, 5);
  EXPECT_EQ(o.poll_ms, 50);
  EXPECT_EQ(o.reconnect_max_ms, 2000);
  EXPECT_EQ(o.has_sched_interval_off, 1);

  const char* bad[] = {"los_timeout_ms=abc", "los_timeout_ms=0", "los_fallback=maybe", "los_socket=relative.sock",
                       "los_bogus=1", "los_fallback"};
  for (const char* b : bad) {
    los_options_default(&o);
    err[0] = 0;
    EXPECT_EQ(los_options_parse(b, &o, err, sizeof err), -1) << b;
    const std::string key = std::string(b).substr(0, std::string(b).find('='));
    EXPECT_NE(std::string(err).find(key), std::string::npos) << err;
  }
  los_options_default(&o);
  ASSERT_EQ(los_options_parse("sched_interval=60", &o, err, sizeof err), 0);
  EXPECT_EQ(o.has_sched_interval_off, 0);
}

// 8 nodes; job 1 runs on 4 of them until t=100 (now = 0).
// Queue: A(5 nodes, 50 s), B(2 nodes, 200 s), C(2 nodes, 80 s), D(3 nodes, 50 s).
// FIFO: A does not fit (4 free) -> nothing starts.
// EASY: A reserved at t=100 with 8-5 = 3 extra nodes; B (ends 200 > 100) fits on
// the extra nodes (extra 3 -> 1); C ends at 80 <= 100 -> starts; D no longer fits.
TEST(PluginCore, FallbackFifoAndEasyOnAHandComputedQueue) {
  for (int policy : {LOS_FALLBACK_FIFO, LOS_FALLBACK_EASY, LOS_FALLBACK_NONE}) {
    Snap snap;
    snap.s.seq = 1;
    snap.s.now = 0;
    los_partition* p = add_partition(snap.s, "batch", 8);
    add_running(p, 1, -10, 110, {0, 1, 2, 3});
    add_pending(p, 10, 5, 50, 40);
    add_pending(p, 11, 2, 200, 30);
    add_pending(p, 12, 2, 80, 20);
    add_pending(p, 13, 3, 50, 10);
    los_partition_sort_queue(p);
    Decs d;
    ASSERT_EQ(los_fallback_decide(&snap.s, policy, &d.d), 0);
    EXPECT_EQ(d.d.seq, 1u);
    if (policy == LOS_FALLBACK_EASY) {
      EXPECT_EQ(starts(d.d), (std::vector<std::string>{"11:2", "12:2"}));
      // distinct free nodes: n5..n8
      EXPECT_STREQ(d.d.items[0].nodes[0], "n5");
      EXPECT_STREQ(d.d.items[0].nodes[1], "n6");
      EXPECT_STREQ(d.d.items[1].nodes[0], "n7");
      EXPECT_STREQ(d.d.items[1].nodes[1], "n8");
    } else {
      EXPECT_EQ(d.d.count, 0u) << los_fallback_name(policy);
    }
  }
}

// The reservation counts the jobs this very step starts: 16 idle nodes,
// K1(8, 120 s) starts; K2(16) is blocked until K1's limit ends (t=120, extra
// 0); K3(5, 60 s) ends before that and backfills; K4 and K5 (4 each) no
// longer fit the 3 nodes left.
TEST(PluginCore, FallbackEasyReservesBehindJobsStartedInTheSameStep) {
  Snap snap;
  los_partition* p = add_partition(snap.s, "batch", 16);
  add_pending(p, 1, 8, 120, 50);
  add_pending(p, 2, 16, 60, 40);
  add_pending(p, 3, 5, 60, 30);
  add_pending(p, 4, 4, 60, 20);
  add_pending(p, 5, 4, 60, 10);
  los_partition_sort_queue(p);
  Decs easy;
  ASSERT_EQ(los_fallback_decide(&snap.s, LOS_FALLBACK_EASY, &easy.d), 0);
  EXPECT_EQ(starts(easy.d), (std::vector<std::string>{"1:8", "3:5"}));
  Decs fifo;
  ASSERT_EQ(los_fallback_decide(&snap.s, LOS_FALLBACK_FIFO, &fifo.d), 0);
  EXPECT_EQ(starts(fifo.d), (std::vector<std::string>{"1:8"}));
}

// FIFO starts in order while jobs fit, skips jobs larger than the usable
// machine, and never uses drained or down nodes.
TEST(PluginCore, FallbackUsesOnlyIdleUsableNodes) {
  Snap snap;
  los_partition* p = add_partition(snap.s, "batch", 6);
  p->nodes[0].state = LOS_NODE_DRAINED;
  p->nodes[2].state = LOS_NODE_DOWN;
  add_pending(p, 1, 6, 10, 9);  // larger than the 4 usable nodes: never runs, must not block
  add_pending(p, 2, 2, 10, 8);
  add_pending(p, 3, 2, 10, 7);
  add_pending(p, 4, 1, 10, 6);
  los_partition_sort_queue(p);
  Decs d;
  ASSERT_EQ(los_fallback_decide(&snap.s, LOS_FALLBACK_FIFO, &d.d), 0);
  EXPECT_EQ(starts(d.d), (std::vector<std::string>{"2:2", "3:2"}));
  std::vector<std::string> used;
  for (std::uint32_t i = 0; i < d.d.count; ++i)
    for (std::uint32_t n = 0; n < d.d.items[i].node_count; ++n) used.emplace_back(d.d.items[i].nodes[n]);
  EXPECT_EQ(used, (std::vector<std::string>{"n2", "n4", "n5", "n6"}));
}

// ---- the connection against real socket peers ----------------------------

std::string temp_socket(const char* tag) {
  return (std::filesystem::temp_directory_path() / ("los-plugin-test-" + std::to_string(getpid()) + "-" + tag + ".sock"))
      .string();
}

int listen_on(const std::string& path) {
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

bool read_exact(int fd, std::uint8_t* p, std::size_t n) {
  while (n) {
    ssize_t r = read(fd, p, n);
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}
bool read_frame(int fd, Bytes& payload, los::protocol::FrameHeader& h) {
  std::uint8_t head[LOS_FRAME_HEADER_SIZE];
  if (!read_exact(fd, head, sizeof head)) return false;
  h = los::protocol::decode_header(std::span(head, sizeof head));
  payload.resize(h.payload_length);
  return read_exact(fd, payload.data(), payload.size());
}
void write_all(int fd, const Bytes& b) {
  std::size_t off = 0;
  while (off < b.size()) {
    ssize_t w = write(fd, b.data() + off, b.size() - off);
    if (w <= 0) return;
    off += static_cast<std::size_t>(w);
  }
}

los_options options_for(const std::string& path) {
  los_options o;
  los_options_default(&o);
  std::snprintf(o.socket_path, sizeof o.socket_path, "%s", path.c_str());
  o.timeout_ms = 300;
  o.reconnect_max_ms = 1000;
  return o;
}

TEST(PluginCore, ConnectionToNobodyFailsAndBacksOff) {
  const std::string path = temp_socket("none");
  unlink(path.c_str());
  los_options o = options_for(path);
  los_conn c;
  los_conn_init(&c);
  char err[256] = "";
  EXPECT_EQ(los_conn_ensure(&c, &o, "test", "22.05.8", err, sizeof err), -1);
  EXPECT_NE(std::string(err).find(path), std::string::npos) << err;
  EXPECT_EQ(c.backoff_ms, 250);
  EXPECT_EQ(los_conn_ensure(&c, &o, "test", "22.05.8", err, sizeof err), 1);  // within the backoff
  los_conn_free(&c);
}

// A peer speaking the protocol: answers HELLO, then answers each snapshot
// with `mode`: 0 real decisions, 1 silence, 2 garbage.
void serve(int listen_fd, int mode, std::atomic<int>& snapshots) {
  int fd = accept(listen_fd, nullptr, nullptr);
  if (fd < 0) return;
  Bytes payload;
  los::protocol::FrameHeader h;
  if (read_frame(fd, payload, h) && h.type == LOS_MSG_HELLO) {
    const auto hello = los::protocol::decode_hello(payload);
    los::protocol::HelloOk ok;
    ok.cluster = hello.cluster;
    ok.daemon_version = "test";
    write_all(fd, los::protocol::encode(ok, h.request_id));
    while (read_frame(fd, payload, h)) {
      if (h.type != LOS_MSG_SNAPSHOT) continue;
      const auto snap = los::protocol::decode_snapshot(payload);
      ++snapshots;
      if (mode == 1) {
        std::this_thread::sleep_for(std::chrono::milliseconds(600));
        break;
      }
      if (mode == 2) {
        write_all(fd, Bytes{'n', 'o', 't', ' ', 'a', ' ', 'f', 'r', 'a', 'm', 'e', ' ', 'a', 't', ' ', 'a', 'l', 'l'});
        break;
      }
      los::protocol::DecisionsMessage m;
      m.seq = snap.seq;
      for (const auto& part : snap.partitions)
        for (const auto& j : part.queue) m.decisions.push_back({los::Decision::Kind::Start, LOS_JOB_PENDING, part.partition, j.id, {}});
      write_all(fd, los::protocol::encode(m, h.request_id));
    }
  }
  close(fd);
}

TEST(PluginCore, ExchangeWithAPeerThatAnswersIsSlowOrSendsGarbage) {
  for (int mode : {0, 1, 2}) {
    const std::string path = temp_socket(("m" + std::to_string(mode)).c_str());
    int lfd = listen_on(path);
    ASSERT_GE(lfd, 0);
    std::atomic<int> seen{0};
    std::thread peer(serve, lfd, mode, std::ref(seen));
    los_options o = options_for(path);
    los_conn c;
    los_conn_init(&c);
    char err[256] = "";
    ASSERT_EQ(los_conn_ensure(&c, &o, "test", "22.05.8", err, sizeof err), 0) << err;
    Snap snap;
    snap.s.seq = 1;
    los_partition* p = add_partition(snap.s, "batch", 2);
    add_pending(p, 77, 1, 60, 1);
    Decs d;
    const int rc = los_conn_exchange(&c, &o, &snap.s, &d.d, err, sizeof err);
    if (mode == 0) {
      ASSERT_EQ(rc, 0) << err;
      EXPECT_EQ(snap.s.flags & LOS_SNAPSHOT_RESYNC, LOS_SNAPSHOT_RESYNC);  // first snapshot on a connection
      ASSERT_EQ(d.d.count, 1u);
      EXPECT_EQ(d.d.items[0].job, 77u);
      EXPECT_EQ(c.need_resync, 0);
    } else {
      EXPECT_EQ(rc, -1);
      EXPECT_EQ(c.fd, -1);  // dropped: a late answer can never be applied
      EXPECT_EQ(c.need_resync, 1);
      EXPECT_GT(c.backoff_ms, 0);
      EXPECT_NE(std::string(err), "");
    }
    los_conn_free(&c);
    peer.join();
    EXPECT_EQ(seen.load(), 1);
    close(lfd);
    unlink(path.c_str());
  }
}

}  // namespace
