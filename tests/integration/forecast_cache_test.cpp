// losd's forecast cache (daemon/forecast_cache.cpp) in-process: a partition
// that leaves the snapshot takes its cached forecast along, also when it
// leaves while its forecast is being computed.
#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include "forecast_cache.hpp"
#include "partition_scheduler.hpp"

namespace los::daemon {
namespace {

Snapshot queue_of(const std::string& partition, int jobs) {
  Snapshot s;
  s.partition = partition;
  s.now = 1000;
  for (int n = 0; n < 4; ++n) s.nodes.push_back({std::string("n").append(std::to_string(n)), Node::State::Idle});
  RunningJob r;
  r.job = Job{.id = 1, .user = 1, .submit = 0, .size = 4, .estimate = 600};
  r.start = 900;
  r.nodes = {0, 1, 2, 3};
  s.nodes[0].state = s.nodes[1].state = s.nodes[2].state = s.nodes[3].state = Node::State::Allocated;
  s.running.push_back(r);
  for (int j = 0; j < jobs; ++j) s.queue.push_back(Job{.id = 10 + j, .user = 2, .submit = 950, .size = 1 + j % 4, .estimate = 300});
  return s;
}

// Runs the loop until `answered` reaches `n`: the worker posts the results
// to the loop, which has nothing to do before they come.
void run_until(boost::asio::io_context& loop, const int& answered, int n) {
  auto guard = boost::asio::make_work_guard(loop);
  loop.restart();
  while (answered < n) loop.run_one();
}

TEST(ForecastCache, ADroppedPartitionLeavesNothingBehind) {
  boost::asio::io_context loop;
  ForecastCache cache(loop);
  PartitionScheduler a("a", "easy"), b("b", "easy");
  a.step(queue_of("a", 5), false);
  b.step(queue_of("b", 5), false);
  int answered = 0;
  cache.request(a, ForecastOptions{}, [&] { ++answered; });
  cache.request(b, ForecastOptions{}, [&] { ++answered; });
  run_until(loop, answered, 2);
  EXPECT_EQ(cache.result("a").starts.size(), 5u);
  EXPECT_EQ(cache.partitions(), 2u);

  cache.drop("a");
  EXPECT_EQ(cache.partitions(), 1u);

  // Dropped while computing: the waiter is still answered, then the entry goes.
  cache.request(b, ForecastOptions{}, [&] { ++answered; });  // cached: answered at once
  EXPECT_EQ(answered, 3);
  cache.invalidate("b");
  cache.request(b, ForecastOptions{}, [&] { ++answered; });
  cache.drop("b");
  run_until(loop, answered, 4);
  EXPECT_EQ(cache.partitions(), 0u);
}

}  // namespace
}  // namespace los::daemon
