// losd's limits against a hostile or careless local user, on a real losd over
// its real sockets: connection caps per socket and per uid (the query socket
// never locks out the admin or the plugin), the per-uid request rate,
// half-open connections, rate-limited client warnings in the log, and a
// /metrics endpoint that one stalled HTTP client cannot hold.
//
// The tests that act as another user fork a child that drops to nobody
// (65534); they need root and skip otherwise.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "as_user.hpp"
#include "losd_process.hpp"
#include "protocol/client.hpp"
#include "test_support.hpp"

namespace los {
namespace {

using protocol::Bytes;
using protocol::Client;
using std::chrono::milliseconds;
using std::chrono::seconds;
using std::chrono::steady_clock;
using test::AsUser;
using test::kNobody;
using test::open_directory_to_others;

const std::string kLosd = std::string(LOS_BIN_DIR) + "/losd";

// Opens `n` query connections and handshakes on each: "ok=A refused=R first=MESSAGE".
std::string open_query_connections(const std::string& socket, int n, std::vector<Client>& held) {
  int ok = 0;
  int refused = 0;
  std::string first;
  for (int i = 0; i < n; ++i) {
    Client c(socket, seconds(5));
    try {
      c.hello("crowd");
      ++ok;
      held.push_back(std::move(c));
    } catch (const protocol::RemoteError& e) {
      if (refused++ == 0) first = e.what();
    }
  }
  return "ok=" + std::to_string(ok) + " refused=" + std::to_string(refused) + " first=" + first;
}

protocol::SnapshotMessage one_partition(std::uint64_t seq) {
  protocol::SnapshotMessage m;
  m.seq = seq;
  m.now = 1000 + static_cast<Time>(seq);
  Snapshot p;
  p.partition = "p";
  p.nodes = {{"a", Node::State::Idle}, {"b", Node::State::Idle}};
  m.partitions.push_back(p);
  return m;
}

// Root's admin request and a plugin snapshot both succeed.
void expect_admin_and_plugin_served(const test::LosdProcess& losd) {
  Client plugin(losd.plugin_socket(), seconds(5));
  plugin.hello("plugin");
  EXPECT_EQ(plugin.request(protocol::encode(one_partition(1))).header.type, LOS_MSG_DECISIONS);
  Client admin(losd.admin_socket(), seconds(5));
  admin.hello("losctl");
  const protocol::Frame ok = admin.request(protocol::encode(protocol::SetPolicy{"p", "fcfs"}));
  EXPECT_EQ(protocol::decode_set_policy_ok(ok.payload).policy, "fcfs");
}

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

std::size_t open_descriptors(pid_t pid) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd"))
    ++n;
  return n;
}

TEST(LosdLimits, OneUidCannotTakeMoreThanItsShareOfTheQuerySocket) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to connect as another uid";
  test::LosdProcess losd(kLosd, "default_policy: easy\n");  // limits.max_query_clients_per_uid: 32 by default
  open_directory_to_others(losd);
  AsUser nobody(kNobody,
                [&](std::vector<Client>& held) { return open_query_connections(losd.query_socket(), 40, held); });
  EXPECT_EQ(nobody.report(),
            "ok=32 refused=8 first=too many connections from uid 65534 (limits.max_query_clients_per_uid = 32)");
  // While nobody holds its 32: another user's query, root's admin request and the plugin are served.
  Client query(losd.query_socket(), seconds(5));
  query.hello("losctl");
  EXPECT_EQ(query.request(protocol::encode_query_status()).header.type, LOS_MSG_STATUS);
  expect_admin_and_plugin_served(losd);
  // Its connections closed, nobody may connect again.
  nobody.release();
  AsUser again(kNobody,
               [&](std::vector<Client>& held) { return open_query_connections(losd.query_socket(), 1, held); });
  EXPECT_EQ(again.report(), "ok=1 refused=0 first=");
}

TEST(LosdLimits, AFullQuerySocketDoesNotLockOutTheAdminOrThePlugin) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to connect as another uid";
  test::LosdProcess losd(kLosd, "default_policy: easy\nlimits:\n  max_query_clients: 10\n  max_admin_clients: 2\n");
  open_directory_to_others(losd);
  AsUser nobody(kNobody,
                [&](std::vector<Client>& held) { return open_query_connections(losd.query_socket(), 20, held); });
  EXPECT_EQ(nobody.report(), "ok=10 refused=10 first=too many clients (limits.max_query_clients = 10)");
  expect_admin_and_plugin_served(losd);

  // The admin socket has its own cap.
  std::vector<Client> admins;
  for (int i = 0; i < 2; ++i) {
    admins.emplace_back(losd.admin_socket(), seconds(5));
    admins.back().hello("losctl");
  }
  Client third(losd.admin_socket(), seconds(5));
  try {
    third.hello("losctl");
    ADD_FAILURE() << "a third admin connection was admitted";
  } catch (const protocol::RemoteError& e) {
    EXPECT_STREQ(e.what(), "too many clients (limits.max_admin_clients = 2)");
  }
  admins.clear();
  // A closed admin connection frees its place (closing is noticed asynchronously).
  bool served = false;
  for (int attempt = 0; attempt < 50 && !served; ++attempt) {
    try {
      Client admin(losd.admin_socket(), seconds(5));
      admin.hello("losctl");
      served = true;
    } catch (const protocol::RemoteError&) {
      std::this_thread::sleep_for(milliseconds(20));
    }
  }
  EXPECT_TRUE(served) << losd.log();
}

TEST(LosdLimits, HalfOpenConnectionsCannotExhaustLosd) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to connect as another uid";
  test::LosdProcess losd(kLosd, "default_policy: easy\nlimits:\n  frame_timeout_seconds: 5\n");
  open_directory_to_others(losd);
  const std::size_t before = open_descriptors(losd.pid());
  // 600 connections that send nothing or half a header and never read.
  AsUser nobody(kNobody, [&](std::vector<Client>& held) {
    for (int i = 0; i < 600; ++i) {
      held.emplace_back(losd.query_socket(), seconds(5));
      if (i % 2 == 0) continue;
      try {
        held.back().send(Bytes{'L', 'O'});
      } catch (const std::exception&) {
        // Past the per-uid cap losd refuses and closes at once: the send may meet EPIPE.
      }
    }
    return std::string("held");
  });
  ASSERT_EQ(nobody.report(), "held");
  // losd holds at most its per-uid cap (32) and its lingering refusals (64).
  std::this_thread::sleep_for(milliseconds(300));
  const std::size_t during = open_descriptors(losd.pid());
  EXPECT_LE(during, before + 32 + 64 + 4) << "descriptors before: " << before;
  expect_admin_and_plugin_served(losd);
  Client query(losd.query_socket(), seconds(5));
  query.hello("losctl");
  EXPECT_EQ(query.request(protocol::encode_query_status()).header.type, LOS_MSG_STATUS);
  nobody.release();
  EXPECT_TRUE(losd.alive());
}

TEST(LosdLimits, ConnectionsWithoutHelloAreClosedAfterTheFrameTimeout) {
  test::LosdProcess losd(kLosd, "limits:\n  frame_timeout_seconds: 0.3\n  idle_timeout_seconds: 60\n");
  Client silent_query(losd.query_socket(), seconds(5));
  Client silent_admin(losd.admin_socket(), seconds(5));
  Client silent_plugin(losd.plugin_socket(), seconds(5));
  Client talking(losd.query_socket(), seconds(5));
  talking.hello("losctl");
  EXPECT_TRUE(silent_query.closed_by_peer(seconds(3)));
  EXPECT_TRUE(silent_admin.closed_by_peer(seconds(3)));
  EXPECT_TRUE(silent_plugin.closed_by_peer(seconds(3)));
  // After its HELLO a query connection may idle up to the idle timeout.
  EXPECT_FALSE(talking.closed_by_peer(milliseconds(500)));
  EXPECT_EQ(talking.request(protocol::encode_query_status()).header.type, LOS_MSG_STATUS);
}

// CPU seconds (user + system) losd has used.
double cpu_seconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));
  std::string skip;
  for (int i = 0; i < 11; ++i) fields >> skip;  // state .. cmajflt
  double utime = 0;
  double stime = 0;
  fields >> utime >> stime;
  return (utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

TEST(LosdLimits, OutOfDescriptorsLosdWaitsInsteadOfSpinningAndRecovers) {
  test::LosdProcess losd(kLosd, "default_policy: easy\n");
  // Room for what losd has open and a few connections more.
  rlimit old{};
  ASSERT_EQ(::prlimit(losd.pid(), RLIMIT_NOFILE, nullptr, &old), 0) << std::strerror(errno);
  const rlimit tight{open_descriptors(losd.pid()) + 4, old.rlim_max};
  ASSERT_EQ(::prlimit(losd.pid(), RLIMIT_NOFILE, &tight, nullptr), 0) << std::strerror(errno);
  {
    std::vector<Client> crowd;
    for (int i = 0; i < 20; ++i) crowd.emplace_back(losd.query_socket(), seconds(5));
    std::this_thread::sleep_for(milliseconds(300));
    const double before = cpu_seconds(losd.pid());
    std::this_thread::sleep_for(seconds(1));
    // Retrying accept every 100 ms costs next to nothing; spinning would take a core.
    EXPECT_LT(cpu_seconds(losd.pid()) - before, 0.2);
  }
  ASSERT_EQ(::prlimit(losd.pid(), RLIMIT_NOFILE, &old, nullptr), 0) << std::strerror(errno);
  Client query(losd.query_socket(), seconds(5));
  query.hello("losctl");
  EXPECT_EQ(query.request(protocol::encode_query_status()).header.type, LOS_MSG_STATUS);
  EXPECT_TRUE(losd.wait_for_log("msg=\"accept failed\"")) << losd.log();
  EXPECT_LE(count(losd.log(), "msg=\"accept failed\""), 5u) << losd.log();
}

TEST(LosdLimits, AQueryFloodIsRateLimitedPerUidAndThePluginIsNotDelayed) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to connect as another uid";
  test::LosdProcess losd(kLosd,
                         "default_policy: easy\nlimits:\n  query_requests_per_second_per_uid: 20\n"
                         "  query_request_burst_per_uid: 40\n");
  open_directory_to_others(losd);
  // Four connections of nobody, each sending 100 requests as fast as it can.
  AsUser nobody(kNobody, [&](std::vector<Client>&) {
    std::vector<std::thread> threads;
    std::atomic<int> ok{0};
    std::atomic<int> limited{0};
    std::string message;
    std::mutex mutex;
    std::vector<Client> clients;
    for (int t = 0; t < 4; ++t) {
      clients.emplace_back(losd.query_socket(), seconds(5));
      clients.back().hello("flood");
    }
    const auto t0 = steady_clock::now();
    for (Client& c : clients) {
      threads.emplace_back([&] {
        for (int i = 0; i < 100; ++i) {
          try {
            c.request(protocol::encode_query_status());
            ++ok;
          } catch (const protocol::RemoteError& e) {
            ++limited;
            std::lock_guard lock(mutex);
            message = e.what();
          }
        }
      });
    }
    for (auto& t : threads) t.join();
    const double took = std::chrono::duration<double>(steady_clock::now() - t0).count();
    return "ok=" + std::to_string(ok) + " limited=" + std::to_string(limited) + " seconds=" + std::to_string(took) +
           " message=" + message;
  });
  // Meanwhile the plugin's round trips stay fast.
  Client plugin(losd.plugin_socket(), seconds(5));
  plugin.hello("plugin");
  double slowest = 0;
  for (std::uint64_t seq = 1; seq <= 50; ++seq) {
    const auto t0 = steady_clock::now();
    EXPECT_EQ(plugin.request(protocol::encode(one_partition(seq))).header.type, LOS_MSG_DECISIONS);
    slowest = std::max(slowest, std::chrono::duration<double>(steady_clock::now() - t0).count());
    std::this_thread::sleep_for(milliseconds(20));
  }
  const std::string report = nobody.report();
  int ok = 0;
  int limited = 0;
  double took = 0;
  ASSERT_EQ(std::sscanf(report.c_str(), "ok=%d limited=%d seconds=%lf", &ok, &limited, &took), 3) << report;
  // 400 requests + 4 HELLOs: the burst, then 20 per second.
  EXPECT_GT(limited, 0) << report;
  EXPECT_LE(ok + 4, 40 + 20 * took + 5) << report;
  EXPECT_NE(report.find("message=rate limited: uid 65534 sends more than limits.query_requests_per_second_per_uid = 20 "
                        "(burst limits.query_request_burst_per_uid = 40); retry later"),
            std::string::npos)
      << report;
  // A tiny snapshot takes well under a millisecond; the margin is for a loaded test machine.
  EXPECT_LT(slowest, 0.25) << "slowest plugin round trip during the flood";
  // Root is not rate limited.
  Client root(losd.query_socket(), seconds(5));
  root.hello("losctl");
  for (int i = 0; i < 100; ++i) EXPECT_EQ(root.request(protocol::encode_query_status()).header.type, LOS_MSG_STATUS);
}

TEST(LosdLimits, RepeatedClientWarningsAreSummarisedNotEachLogged) {
  test::LosdProcess losd(kLosd, "default_policy: easy\n");
  {
    Client c(losd.query_socket(), seconds(5));
    c.hello("intruder");
    // 5,000 refused requests: a change asked on the read-only socket.
    for (int i = 0; i < 5000; ++i) {
      try {
        c.request(protocol::encode(protocol::SetPolicy{"p", "fcfs"}));
        ADD_FAILURE() << "SET_POLICY accepted on the query socket";
      } catch (const protocol::RemoteError&) {
      }
    }
  }
  // The first five are written; the rest are summed up once the 10 s interval ends.
  ASSERT_TRUE(losd.wait_for_log("suppressed 4995 similar warnings", seconds(15))) << losd.log();
  const std::string log = losd.log();
  EXPECT_EQ(count(log, "msg=\"protocol error\""), 5u) << log;
  EXPECT_NE(log.find("kind=\"protocol error/not_allowed\" uid=" + std::to_string(::geteuid())), std::string::npos)
      << log;
  expect_admin_and_plugin_served(losd);
}

// ---- /metrics --------------------------------------------------------------

// Reads until EOF or `timeout`; false on timeout.
bool read_to_eof(int fd, std::string& out, milliseconds timeout) {
  const auto deadline = steady_clock::now() + timeout;
  char buf[4096];
  while (true) {
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - steady_clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left)) != 1) return false;
    const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) return true;
    out.append(buf, static_cast<std::size_t>(n));
  }
}

TEST(LosdLimits, AStalledHttpClientDoesNotHoldMetrics) {
  const int port = test::free_tcp_port();
  test::LosdProcess losd(kLosd, "metrics:\n  listen: \"127.0.0.1:" + std::to_string(port) + "\"\n");
  // An HTTP request that never ends. The listener may open a moment after
  // the sockets (slower under a sanitizer): retry the first connect.
  int stalled = -1;
  for (const auto until = steady_clock::now() + seconds(10); stalled < 0 && steady_clock::now() < until;) {
    stalled = test::connect_tcp(port);
    if (stalled < 0) std::this_thread::sleep_for(milliseconds(50));
  }
  ASSERT_GE(stalled, 0);
  const std::string half = "GET /metrics HTTP/1.1\r\nHost: local";
  ASSERT_EQ(::send(stalled, half.data(), half.size(), 0), static_cast<ssize_t>(half.size()));
  std::this_thread::sleep_for(milliseconds(100));

  const int fd = test::connect_tcp(port);
  ASSERT_GE(fd, 0);
  const std::string get = "GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n";
  ::send(fd, get.data(), get.size(), 0);
  std::string answer;
  EXPECT_TRUE(read_to_eof(fd, answer, seconds(5)));
  ::close(fd);
  EXPECT_NE(answer.find("los_plugin_connections 0"), std::string::npos) << answer;
  // Answered while the stalled request is still held open (a single-threaded
  // exposer would answer only after dropping it): an order, not a duration,
  // so a loaded machine cannot fail it.
  char byte;
  errno = 0;
  EXPECT_EQ(::recv(stalled, &byte, 1, MSG_DONTWAIT | MSG_PEEK), -1);
  EXPECT_TRUE(errno == EAGAIN || errno == EWOULDBLOCK) << "the stalled request was dropped before the answer";

  // The stalled request is dropped after metrics' request timeout (2 s), not 30 s.
  std::string ignored;
  EXPECT_TRUE(read_to_eof(stalled, ignored, seconds(5)));
  ::close(stalled);
}

TEST(LosdLimits, NewLimitKeysAreCheckedAndNamed) {
  char dir[] = "/tmp/losd-limits-XXXXXX";
  ASSERT_TRUE(::mkdtemp(dir));
  const std::string path = std::string(dir) + "/losd.yaml";
  auto check = [&](const std::string& text) {
    std::ofstream(path) << text;
    return test::run_command(kLosd + " --check-config --config " + path);
  };
  test::CommandResult r = check(
      "limits:\n  max_admin_clients: 4\n  max_query_clients_per_uid: 8\n"
      "  query_requests_per_second_per_uid: 2.5\n  query_request_burst_per_uid: 10\n");
  EXPECT_EQ(r.status, 0) << r.output;
  r = check("limits:\n  max_admin_clients: 0\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find(":2: limits.max_admin_clients: 0 is outside [1, 10000]"), std::string::npos) << r.output;
  r = check("limits:\n  max_query_clients_per_uid: many\n");
  EXPECT_NE(r.output.find(":2: limits.max_query_clients_per_uid: 'many' is not an integer"), std::string::npos)
      << r.output;
  r = check("limits:\n  query_requests_per_second_per_uid: -1\n");
  EXPECT_NE(r.output.find(":2: limits.query_requests_per_second_per_uid: -1 is outside"), std::string::npos)
      << r.output;
  r = check("limits:\n  query_request_burst_per_uid: 0\n");
  EXPECT_NE(r.output.find(":2: limits.query_request_burst_per_uid: 0 is outside"), std::string::npos) << r.output;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace los
