#include "sim/reliability/run_timeline.hpp"

#include <gtest/gtest.h>

namespace k3::reliability {
namespace {

TimelineInputs quiet_run() {
  TimelineInputs in;
  in.wall_s = 10 * 3600.0;
  in.interval_s = 3600;
  in.save_s = 360;
  return in;
}

TEST(RunTimeline, NoFailuresIsTrainingAndSaves) {
  // 10 h, a 0.1 h save after every hour of training: cycles of 1.1 h, nine of them in 9.9 h, then 0.1 h of
  // training. Useful 9 x 1 + 0.1 = 9.1 h, saving 9 x 0.1 = 0.9 h.
  const auto t = simulate_timeline(quiet_run(), 1);
  EXPECT_NEAR(t.useful_s, 9.1 * 3600, 1e-6);
  EXPECT_NEAR(t.checkpoint_s, 0.9 * 3600, 1e-6);
  EXPECT_NEAR(t.accounted_s(), 10 * 3600.0, 1e-6);
}

TEST(RunTimeline, EverySecondIsAccountedWithEveryMechanismOn) {
  auto in = quiet_run();
  in.wall_s = 30 * 86400.0;
  for (auto& r : in.rates_per_s) r = 1.0 / (8 * 3600);
  in.restart_s = 600;
  in.restore_s = 120;
  in.spare_nodes = 1;
  in.repair_s = 3 * 3600;
  in.stragglers_per_s = 1.0 / 86400;
  in.straggler_slowdown = 1.5;
  in.straggler_found_s = 2 * 3600;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const auto t = simulate_timeline(in, seed);
    EXPECT_NEAR(t.accounted_s(), in.wall_s, 1e-3) << "seed " << seed;
    int n = 0;
    for (const int k : t.interruptions) n += k;
    // Seven causes at one per 8 h each for 30 days: 7 x 90 = 630 expected, less the planned ones absorbed.
    EXPECT_GT(n, 400);
    EXPECT_LT(n, 800);
    EXPECT_GT(t.stragglers, 0);
    EXPECT_GT(t.straggler_slow_s, 0);
    EXPECT_GE(t.spare_wait_s, 0);
  }
  // One spare and 3 h repairs against a node-taking failure every 2 h: the pool runs dry and the job waits.
  EXPECT_GT(simulate_timeline(in, 1).spare_wait_s, 0);
  in.spare_nodes.reset();
  EXPECT_EQ(simulate_timeline(in, 1).spare_wait_s, 0);
}

TEST(RunTimeline, SameSeedSameRun) {
  auto in = quiet_run();
  in.rates_per_s[0] = 1.0 / 3600;
  in.restart_s = 300;
  const auto a = simulate_timeline(in, 7);
  const auto b = simulate_timeline(in, 7);
  EXPECT_EQ(a.useful_s, b.useful_s);
  EXPECT_EQ(a.interruptions, b.interruptions);
  EXPECT_NE(a.useful_s, simulate_timeline(in, 8).useful_s);
}

TEST(RunTimeline, PlannedInterruptionLosesNoWork) {
  auto in = quiet_run();
  in.rates_per_s[static_cast<std::size_t>(FailureCause::planned)] = 1.0 / 3600;
  in.restart_s = 60;
  const auto t = simulate_timeline(in, 3);
  EXPECT_GT(t.interruptions[static_cast<std::size_t>(FailureCause::planned)], 0);
  EXPECT_EQ(t.lost_work_s[static_cast<std::size_t>(FailureCause::planned)], 0);
  EXPECT_GT(t.down_s[static_cast<std::size_t>(FailureCause::planned)], 0);
}

}  // namespace
}  // namespace k3::reliability
