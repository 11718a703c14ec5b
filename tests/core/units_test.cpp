#include <gtest/gtest.h>

#include "core/units.hpp"

using k3::core::SimTime;

TEST(SimTime, SecondsRoundTripInPicoseconds) {
  // 1.5 us = 1,500,000 ps exactly.
  EXPECT_EQ(SimTime::from_us(1.5).ps(), 1'500'000);
  EXPECT_DOUBLE_EQ(SimTime::from_ps(2'000'000'000'000).seconds(), 2.0);
}

TEST(SimTime, PositiveDurationNeverRoundsToZero) {
  // 1e-15 s is 0.001 ps: a positive duration still advances time by 1 ps.
  EXPECT_EQ(SimTime::from_seconds(1e-15).ps(), 1);
  EXPECT_EQ(SimTime::from_seconds(0.0).ps(), 0);
}

TEST(SimTime, TransferTime) {
  // 1 GB at 100 GB/s = 10 ms = 1e10 ps.
  EXPECT_EQ(k3::core::transfer_time(1e9, 100e9).ps(), 10'000'000'000);
}

TEST(SimTime, OrderingAndArithmetic) {
  const auto a = SimTime::from_ns(5);
  const auto b = SimTime::from_ns(7);
  EXPECT_LT(a, b);
  EXPECT_EQ((b - a).ps(), 2000);
  EXPECT_EQ((a + b).ps(), 12000);
}
