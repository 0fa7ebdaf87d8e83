// The SchedulerParameters parser: defaults, every key, bad values named.
#include <gtest/gtest.h>

#include <string>

#include "fallback.h"
#include "options.h"

#include "plugin_test_support.hpp"

namespace {

using namespace los::plugin_test;

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

  const char* bad[] = {"los_timeout_ms=abc",       "los_timeout_ms=0", "los_fallback=maybe",
                       "los_socket=relative.sock", "los_bogus=1",      "los_fallback"};
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

}  // namespace
