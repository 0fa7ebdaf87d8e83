// The connection to losd against real socket peers that are missing, answer,
// stay silent or send garbage.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>

#include "conn.h"
#include "options.h"
#include "protocol/codec.hpp"
#include "snapshot.h"

#include "plugin_test_support.hpp"

namespace {

using namespace los::plugin_test;

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
        for (const auto& j : part.queue)
          m.decisions.push_back({los::Decision::Kind::Start, LOS_JOB_PENDING, part.partition, j.id, {}});
      write_all(fd, los::protocol::encode(m, h.request_id));
    }
  }
  close(fd);
}

TEST(PluginCore, ExchangeWithAPeerThatAnswersIsSlowOrSendsGarbage) {
  for (int mode : {0, 1, 2}) {
    char tag[16];
    std::snprintf(tag, sizeof tag, "m%d", mode);  // (GCC 12 warns falsely on "m" + std::to_string)
    const std::string path = temp_socket(tag);
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
