#include "sim/engine/event_queue.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using k3::core::SimTime;
using k3::engine::EventCallback;
using k3::engine::EventQueue;

namespace {
void drain(EventQueue& q) {
  EventCallback cb;
  while (!q.empty()) {
    q.pop(cb);
    cb();
  }
}
}  // namespace

TEST(EventQueue, OrdersByTimeThenPriorityThenInsertion) {
  EventQueue q;
  std::vector<std::string> fired;
  auto at = [&](std::int64_t ps, int prio, std::string tag) {
    q.schedule(SimTime::from_ps(ps), prio, [&fired, tag] { fired.push_back(tag); });
  };
  at(20, 0, "t20");
  at(10, 5, "t10-p5-first");
  at(10, -1, "t10-p-1");
  at(10, 5, "t10-p5-second");
  at(5, 9, "t5");
  // By hand: time 5 first; at time 10 priority -1 before 5; the two priority-5 events keep insertion order.
  drain(q);
  EXPECT_EQ(fired, (std::vector<std::string>{"t5", "t10-p-1", "t10-p5-first", "t10-p5-second", "t20"}));
}

TEST(EventQueue, CancelledEventsNeverFireAndHandlesGoStale) {
  EventQueue q;
  std::vector<int> fired;
  auto a = q.schedule(SimTime::from_ps(1), 0, [&] { fired.push_back(1); });
  auto b = q.schedule(SimTime::from_ps(2), 0, [&] { fired.push_back(2); });
  q.schedule(SimTime::from_ps(3), 0, [&] { fired.push_back(3); });
  EXPECT_TRUE(q.cancel(b));
  EXPECT_FALSE(q.cancel(b));  // second cancel is a no-op
  EXPECT_EQ(q.size(), 2u);
  EXPECT_TRUE(q.pending(a));
  EXPECT_EQ(q.next_time(), SimTime::from_ps(1));
  drain(q);
  EXPECT_EQ(fired, (std::vector<int>{1, 3}));
  EXPECT_FALSE(q.pending(a));  // fired
  EXPECT_FALSE(q.cancel(a));
  // A slot reused by a new event does not make the old handle live again.
  auto c = q.schedule(SimTime::from_ps(4), 0, [&] { fired.push_back(4); });
  EXPECT_FALSE(q.pending(a));
  EXPECT_FALSE(q.pending(b));
  EXPECT_TRUE(q.pending(c));
}

TEST(EventQueue, CancelledTopIsSkippedByNextTime) {
  EventQueue q;
  auto a = q.schedule(SimTime::from_ps(1), 0, [] {});
  q.schedule(SimTime::from_ps(7), 0, [] {});
  q.cancel(a);
  EXPECT_EQ(q.next_time(), SimTime::from_ps(7));
  q.cancel(a);
  EXPECT_EQ(q.size(), 1u);
}
