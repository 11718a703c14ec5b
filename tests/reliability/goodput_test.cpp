#include "sim/reliability/goodput.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"

namespace k3::reliability {
namespace {

TEST(Goodput, DalyAndYoungByHand) {
  // save 360 s, MTBF 36,000 s: Young sqrt(2 x 360 x 36,000) = 5,091.17 s; Daly with x = 360 / 72,000 = 0.005:
  // 5,091.17 x (1 + sqrt(0.005) / 3 + 0.005 / 9) - 360 = 5,091.17 x 1.024126 - 360 = 4,854.0 s.
  EXPECT_NEAR(young_interval_s(360, 36000), 5091.17, 0.01);
  EXPECT_NEAR(daly_interval_s(360, 36000), 4854.0, 0.2);
  EXPECT_EQ(daly_interval_s(100, 40), 40);  // a save longer than 2 MTBF: save every MTBF
}

// Exponential failures at rate l = 0.1 / h, a save of d = 0.1 h, instant restart. A segment of t hours of training
// is kept once t + d run without a failure; with memoryless failures and nothing lost to the restart, its expected
// wall-clock is (e^(l (t + d)) - 1) / l, so the fraction of time training is kept is f(t) = l t / (e^(l (t + d)) - 1).
// f'(t) = 0 gives e^(l (t + d)) (1 - l t) = 1, i.e. t* = (1 + W0(-e^(-1 - l d))) / l with Lambert's W. With l d = 0.01,
// bisection on e^(0.1 (t + 0.1)) (1 - 0.1 t) - 1 over [0.5, 3] h gives t* = 1.34835 h = 4,854.1 s (Daly's formula
// above: 4,854.0 s), and f(t*) = 0.134835 / (e^0.144835 - 1) = 0.86517; one scan step away,
// f(t* / 2^(1/4)) = 0.86343, 0.2% lower: the optimum is flat.
RecoverySpec exponential_only() {
  RecoverySpec s;
  s.rates = {};
  s.rates[FailureCause::gpu] = 0.1;  // per GPU-hour, on one GPU
  s.restart_s = 0;
  s.storage_write_bytes_per_s = 1;
  s.storage_read_bytes_per_s = 1e30;  // restore instant too
  return s;
}

RunFacts one_gpu() {
  RunFacts f;
  f.gpus = 1;
  f.gpus_per_node = 1;
  f.step_time_s = 1;
  f.tokens_per_step = 1;
  f.checkpoint_bytes = 360;  // 360 s at 1 B/s
  return f;
}

TEST(Goodput, SimulatedOptimumAgreesWithYoungDalyForExponentialFailures) {
  const double t_star = 4854.1;
  const double f_star = 0.86517;
  GoodputOptions o;
  o.days = 100;  // 2,400 h: about 240 failures a replication
  o.replications = 64;
  o.seed = 42;
  const auto r = simulate_goodput(exponential_only(), one_gpu(), o);
  EXPECT_NEAR(r.mtbf_s, 36000, 1e-6);
  EXPECT_NEAR(r.daly_interval_s, 4854.0, 0.2);
  // The kept fraction at t* is the closed form's, within three standard errors of the replications' mean.
  const auto at_t_star = evaluate_interval(timeline_inputs(exponential_only(), one_gpu(), o.days, t_star), o.replications, o.seed);
  EXPECT_NEAR(at_t_star.ettr_mean, f_star, 3 * at_t_star.ettr_stderr);
  // The simulated optimum: the scan's best point is no better than t*'s by more than the sampling error, and lies
  // within two scan steps either side of t* (the curve is flat there).
  IntervalPoint best;
  for (const auto& p : r.scan) {
    if (p.interval_s == r.optimum_interval_s) best = p;
  }
  EXPECT_LT(best.ettr_mean - at_t_star.ettr_mean, 3 * best.ettr_stderr);
  EXPECT_GT(r.optimum_interval_s, t_star / std::exp2(0.5));
  EXPECT_LT(r.optimum_interval_s, t_star * std::exp2(0.5));
  EXPECT_NEAR(r.ettr.mean, f_star, 0.01);
  EXPECT_EQ(r.interval_s, r.optimum_interval_s);
}

TEST(Goodput, Llama3RunWithItsOwnRatesIsAboutItsCounts) {
  RecoverySpec s;
  s.restart_s = 600;
  RunFacts f;
  f.gpus = 16384;
  f.gpus_per_node = 8;
  f.step_time_s = 10;
  f.tokens_per_step = 16e6;
  f.checkpoint_bytes = 405e9 * 14;  // BF16 weights + fp32 master and two moments
  GoodputOptions o;
  o.days = 54;
  o.replications = 16;
  o.seed = 1;
  const auto r = simulate_goodput(s, f, o);
  // 466 interruptions in 54 days at the published rates; the planned ones that fall in a recovery are absorbed.
  EXPECT_GT(r.interruptions.mean, 420);
  EXPECT_LT(r.interruptions.mean, 480);
  EXPECT_GT(r.ettr.p10, 0.5);
  EXPECT_LT(r.ettr.p90, 1.0);
  EXPECT_LE(r.ettr.p10, r.ettr.p50);
  EXPECT_LE(r.ettr.p50, r.ettr.p90);
  // save: 5.67 TB at 2 TB/s = 2.835 s.
  EXPECT_NEAR(r.save_s, 2.835, 1e-9);
  EXPECT_FALSE(r.interval_given);
}

TEST(Goodput, ARunThatNeverRecoversKeepsNothingAndStillReports) {
  // A failure an hour and 10 h to restart: almost every recovery is cut short by the next failure (e^-10 of them
  // finish), so the run trains next to nothing; the scan has no better interval and reports its first.
  auto spec = exponential_only();
  spec.rates[FailureCause::gpu] = 1;
  spec.restart_s = 36000;
  GoodputOptions o;
  o.days = 10;
  o.replications = 4;
  o.seed = 3;
  const auto r = simulate_goodput(spec, one_gpu(), o);
  EXPECT_LT(r.ettr.p90, 0.01);
  EXPECT_GT(r.interval_s, 0);
}

TEST(Goodput, RunsThatWouldNotEndAreRefused) {
  GoodputOptions o;
  o.days = 100;
  o.replications = 1;
  // 0.1 failures a GPU-hour on 100,000 GPUs for 2,400 h: 24 million interruptions, over the 100,000 allowed.
  auto f = one_gpu();
  f.gpus = 100000;
  EXPECT_THROW(simulate_goodput(exponential_only(), f, o), core::InputError);
  // A save every 10 s for 100 days is 864,000 saves: the shortest allowed interval is 8.64e6 / 1e5 = 86.4 s.
  auto spec = exponential_only();
  spec.checkpoint_interval_s = 10;
  EXPECT_THROW(simulate_goodput(spec, one_gpu(), o), core::InputError);
  spec.checkpoint_interval_s = 90;
  EXPECT_NO_THROW(simulate_goodput(spec, one_gpu(), o));
}

}  // namespace
}  // namespace k3::reliability
