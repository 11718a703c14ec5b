// Max-min fair sharing, cases derived by hand (each comment is the derivation, then the assertion).
#include "sim/net/maxmin.hpp"

#include <gtest/gtest.h>

#include <vector>

using k3::net::MaxMinLink;
using k3::net::MaxMinSystem;

TEST(MaxMin, SharedBottleneckSplitsEqually) {
  // Two access links of 10 B/s feed one shared link of 10 B/s. Both flows cross the shared link, whose
  // share is 10 / 2 = 5 < 10 (the access links' share): each flow gets 5.
  MaxMinSystem s;
  const MaxMinLink a = s.add_link(10), b = s.add_link(10), shared = s.add_link(10);
  const auto f0 = s.add_variable(std::vector<MaxMinLink>{a, shared});
  const auto f1 = s.add_variable(std::vector<MaxMinLink>{b, shared});
  s.solve();
  EXPECT_DOUBLE_EQ(s.rate(f0), 5.0);
  EXPECT_DOUBLE_EQ(s.rate(f1), 5.0);
}

TEST(MaxMin, BottleneckOnTheSecondHop) {
  // Flow A crosses L0 (100 B/s) then L1 (4 B/s); flow B crosses only L0. Shares: L0 100/2 = 50, L1 4/1 = 4.
  // L1 saturates first: A = 4. L0 then has 100 - 4 = 96 for B alone: B = 96.
  MaxMinSystem s;
  const MaxMinLink l0 = s.add_link(100), l1 = s.add_link(4);
  const auto fa = s.add_variable(std::vector<MaxMinLink>{l0, l1});
  const auto fb = s.add_variable(std::vector<MaxMinLink>{l0});
  s.solve();
  EXPECT_DOUBLE_EQ(s.rate(fa), 4.0);
  EXPECT_DOUBLE_EQ(s.rate(fb), 96.0);
}

TEST(MaxMin, FlowsOfUnequalRoutes) {
  // Link a = 1 B/s, link b = 2 B/s. f0 crosses a and b, f1 only a, f2 only b.
  // Shares: a 1/2 = 0.5, b 2/2 = 1. a saturates first: f0 = f1 = 0.5. b keeps 2 - 0.5 = 1.5 for f2.
  MaxMinSystem s;
  const MaxMinLink a = s.add_link(1), b = s.add_link(2);
  const auto f0 = s.add_variable(std::vector<MaxMinLink>{a, b});
  const auto f1 = s.add_variable(std::vector<MaxMinLink>{a});
  const auto f2 = s.add_variable(std::vector<MaxMinLink>{b});
  s.solve();
  EXPECT_DOUBLE_EQ(s.rate(f0), 0.5);
  EXPECT_DOUBLE_EQ(s.rate(f1), 0.5);
  EXPECT_DOUBLE_EQ(s.rate(f2), 1.5);
}

TEST(MaxMin, ParkingLotChain) {
  // Three links of 6 B/s in a chain; the long flow crosses all three, one short flow per link.
  // Every link has 2 flows: share 3 everywhere, all saturate at level 3: every flow gets 3.
  MaxMinSystem s;
  const MaxMinLink l0 = s.add_link(6), l1 = s.add_link(6), l2 = s.add_link(6);
  const auto lng = s.add_variable(std::vector<MaxMinLink>{l0, l1, l2});
  const auto s0 = s.add_variable(std::vector<MaxMinLink>{l0});
  const auto s1 = s.add_variable(std::vector<MaxMinLink>{l1});
  const auto s2 = s.add_variable(std::vector<MaxMinLink>{l2});
  s.solve();
  for (auto v : {lng, s0, s1, s2}) EXPECT_DOUBLE_EQ(s.rate(v), 3.0);
}

TEST(MaxMin, RemovingAFlowSpeedsUpTheOthers) {
  // Three flows on one 9 B/s link: 3 each. Remove one: the two left get 9 / 2 = 4.5.
  MaxMinSystem s;
  const MaxMinLink l = s.add_link(9);
  const auto f0 = s.add_variable(std::vector<MaxMinLink>{l});
  const auto f1 = s.add_variable(std::vector<MaxMinLink>{l});
  const auto f2 = s.add_variable(std::vector<MaxMinLink>{l});
  s.solve();
  EXPECT_DOUBLE_EQ(s.rate(f0), 3.0);
  s.remove_variable(f1);
  const auto changed = s.solve();
  EXPECT_EQ(changed.size(), 2u);
  EXPECT_DOUBLE_EQ(s.rate(f0), 4.5);
  EXPECT_DOUBLE_EQ(s.rate(f2), 4.5);
}

TEST(MaxMin, WeightsSplitABottleneckProportionally) {
  // Weights 1 and 3 on an 8 B/s link: level = 8 / (1 + 3) = 2, rates 2 and 6.
  MaxMinSystem s;
  const MaxMinLink l = s.add_link(8);
  const auto light = s.add_variable(std::vector<MaxMinLink>{l}, 1.0);
  const auto heavy = s.add_variable(std::vector<MaxMinLink>{l}, 3.0);
  s.solve();
  EXPECT_DOUBLE_EQ(s.rate(light), 2.0);
  EXPECT_DOUBLE_EQ(s.rate(heavy), 6.0);
}

TEST(MaxMin, ResolveTouchesOnlyTheChangedComponent) {
  // Component 1: link p (4 B/s) with 2 flows -> 2 each. Component 2: link q (10 B/s) with 1 flow -> 10.
  // Adding a flow on q re-solves q's component only: 2 variables, q's flows get 5, p's keep 2.
  MaxMinSystem s;
  const MaxMinLink p = s.add_link(4), q = s.add_link(10);
  const auto p0 = s.add_variable(std::vector<MaxMinLink>{p});
  const auto p1 = s.add_variable(std::vector<MaxMinLink>{p});
  const auto q0 = s.add_variable(std::vector<MaxMinLink>{q});
  s.solve();
  EXPECT_EQ(s.last_component_variables(), 3u);
  const auto q1 = s.add_variable(std::vector<MaxMinLink>{q});
  const auto changed = s.solve();
  EXPECT_EQ(s.last_component_variables(), 2u);
  EXPECT_EQ(changed.size(), 2u);
  EXPECT_DOUBLE_EQ(s.rate(q0), 5.0);
  EXPECT_DOUBLE_EQ(s.rate(q1), 5.0);
  EXPECT_DOUBLE_EQ(s.rate(p0), 2.0);
  EXPECT_DOUBLE_EQ(s.rate(p1), 2.0);
  EXPECT_FALSE(s.dirty());
}
