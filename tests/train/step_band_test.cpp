// The uncertainty band's pieces with hand-derived expectations: quantiles, the hypercube's strata, the
// sliced link draws and the pairing by id; and a small step whose band brackets its plain run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "sim/input/scenario_inputs.hpp"
#include "sim/train/step_band.hpp"

using k3::core::ProvenanceEntry;
using k3::core::SourceKind;

namespace {

ProvenanceEntry entry(std::string id, double nominal, double low, double high) {
  return {std::move(id), nominal, nominal, low, high, "fraction", SourceKind::assumption, "test"};
}

// CDF of the triangular distribution on [a, b] with mode c.
double triangular_cdf(double x, double a, double c, double b) {
  if (x <= c) return (x - a) * (x - a) / ((b - a) * (c - a));
  return 1 - (b - x) * (b - x) / ((b - a) * (b - c));
}

}  // namespace

TEST(StepBand, QuantilesInterpolateBetweenOrderStatistics) {
  // 11 values 1..11: P10 sits at position 0.1 x 10 = 1 (value 2), P50 at 5 (6), P90 at 9 (10).
  const auto q = k3::train::quantiles({11, 3, 1, 2, 4, 5, 6, 7, 8, 9, 10});
  EXPECT_DOUBLE_EQ(q.p10, 2);
  EXPECT_DOUBLE_EQ(q.p50, 6);
  EXPECT_DOUBLE_EQ(q.p90, 10);
  // 2 values 0 and 10: P10 at position 0.1 is 1.
  EXPECT_DOUBLE_EQ(k3::train::quantiles({10, 0}).p10, 1);
}

TEST(StepBand, EachEntryHitsEveryStratumOnce) {
  const std::vector<ProvenanceEntry> entries = {entry("a", 0.6, 0.5, 0.73), entry("b", 1.0, 0.8, 1.0),
                                                entry("exact", 2.0, 2.0, 2.0)};
  const int n = 64;
  const auto samples = k3::train::band_samples(entries, n, 7);
  ASSERT_EQ(samples.size(), 64u);
  for (const auto& e : {entries[0], entries[1]}) {
    std::set<int> strata;
    for (const auto& s : samples) {
      const double v = s.at(e.id);
      ASSERT_GE(v, e.low);
      ASSERT_LE(v, e.high);
      strata.insert(static_cast<int>(std::floor(triangular_cdf(v, e.low, e.nominal, e.high) * n)));
    }
    EXPECT_EQ(strata.size(), 64u) << e.id;  // one sample in each 1/64 of the distribution
  }
  EXPECT_FALSE(samples[0].contains("exact"));  // an exact figure is never moved
}

TEST(StepBand, LinkFiguresAreSlicedAndDrawsArePairedById) {
  const std::vector<ProvenanceEntry> one = {entry("link.nic.efficiency", 1.0, 0.8, 1.0), entry("gemm", 0.8, 0.7, 0.82)};
  const std::vector<ProvenanceEntry> other = {entry("gemm", 0.8, 0.7, 0.82), entry("kda", 0.35, 0.2, 0.5)};
  const auto a = k3::train::band_samples(one, 64, 1, 8);
  const auto b = k3::train::band_samples(other, 64, 1, 8);
  std::set<double> link;
  for (std::size_t s = 0; s < a.size(); ++s) {
    link.insert(a[s].at("link.nic.efficiency"));
    EXPECT_EQ(a[s].at("link.nic.efficiency"), a[s % 8].at("link.nic.efficiency"));
    EXPECT_EQ(a[s].at("gemm"), b[s].at("gemm"));  // same id, same seed: the same draw in the same sample
  }
  EXPECT_EQ(link.size(), 8u);
}

// Issue 44: one software stack's members are drawn as one factor (sim/train/stack_factors.hpp). With every range
// the symmetric triangle on [0, 2] (mode 1), members of the kernel stack take the same quantile u, so
// hbm.efficiency == gemm.bf16.efficiency in every sample, and kernel.min_time (slower when larger) takes 1 - u:
// the symmetric triangle's inverse CDF gives 2 - hbm.efficiency.
TEST(StepBand, OneStacksMembersMoveTogether) {
  const std::vector<ProvenanceEntry> entries = {entry("hbm.efficiency", 1, 0, 2), entry("gemm.bf16.efficiency", 1, 0, 2),
                                                entry("kernel.min_time", 1, 0, 2), entry("router.alone", 1, 0, 2)};
  const auto samples = k3::train::band_samples(entries, 64, 3, 8);
  int equal_to_alone = 0;
  for (const auto& s : samples) {
    EXPECT_DOUBLE_EQ(s.at("gemm.bf16.efficiency"), s.at("hbm.efficiency"));
    EXPECT_NEAR(s.at("kernel.min_time"), 2 - s.at("hbm.efficiency"), 1e-12);
    equal_to_alone += s.at("router.alone") == s.at("hbm.efficiency") ? 1 : 0;
  }
  EXPECT_LT(equal_to_alone, 4);  // a number outside every stack keeps its own draws
  // Without the stacks every member is drawn on its own.
  const auto apart = k3::train::band_samples(entries, 64, 3, 8, false);
  int equal = 0;
  for (const auto& s : apart) equal += s.at("gemm.bf16.efficiency") == s.at("hbm.efficiency") ? 1 : 0;
  EXPECT_LT(equal, 4);
}

// A "step" that is the sum of two kernel-stack efficiencies, each the triangle on [0, 2]: one member's P10 and P90
// are sqrt(0.2) = 0.44721 and 2 - sqrt(0.2) = 1.55279 (CDF x^2 / 2 below the mode). Drawn as one factor the sum is
// twice one member, so its P10..P90 is 2 x 1.10557 = 2.21115 wide; drawn apart it is the convolution of the two
// triangles, whose P10 and P90 are 1.24658 and 2.75342 (by numerical integration of the convolution's CDF):
// 1.50684 wide. The stack factor widens the band by 2.21115 / 1.50684 = 1.467x.
// (8,000 samples, so that the apart draws' random pairing stays well inside the bound below.)
TEST(StepBand, AStackFactorWidensABandItDominates) {
  const std::vector<ProvenanceEntry> entries = {entry("hbm.efficiency", 1, 0, 2), entry("gemm.bf16.efficiency", 1, 0, 2)};
  auto width = [&](bool correlated) {
    std::vector<double> sums;
    for (const auto& s : k3::train::band_samples(entries, 8000, 11, 0, correlated)) {
      sums.push_back(s.at("hbm.efficiency") + s.at("gemm.bf16.efficiency"));
    }
    const auto q = k3::train::quantiles(sums);
    return q.p90 - q.p10;
  };
  // Drawn as one factor the sum is exactly twice a stratified member: the hypercube puts its quantiles within a
  // stratum (1/8000) of the true ones. Drawn apart the pairing is random: each quantile's standard error is
  // sqrt(0.1 x 0.9 / 8000) / 0.3129 (the convolution's density at its P10) = 0.0107, the width's about 0.015;
  // the bound is three of them.
  EXPECT_NEAR(width(true), 2.21115, 0.01);
  EXPECT_NEAR(width(false), 1.50684, 0.045);
}

TEST(StepBand, SmallStepBandBracketsAndRanksWithSources) {
  auto in = k3::input::load_scenario_inputs(
      std::string(K3SIM_SOURCE_DIR) + "/scenarios/deepseek-v3-h800-2048.yaml",
      {"cluster.nodes=16", "parallel.pp=4", "parallel.ep=32", "batch.global_batch_seqs=256", "network=analytical",
       "kernel_tables=roofline"},  // the roofline's FP8 rate scale is the figure this test draws
      "");
  k3::train::StepOptions opt;
  opt.trace = false;
  const auto plain = k3::train::simulate_step(in.scenario, in.model, *in.topology, nullptr, opt);
  k3::train::BandOptions band_options;
  band_options.samples = 16;
  band_options.threads = 2;
  const auto band = k3::train::simulate_step_band(in.scenario, in.model, *in.topology, nullptr, plain, band_options);
  EXPECT_LT(band.step_time_s.p10, band.step_time_s.p50);
  EXPECT_LT(band.step_time_s.p50, band.step_time_s.p90);
  ASSERT_FALSE(band.sensitivity.empty());
  // Ranked by |swing|, each entry with a source; the FP8 GEMM rate moves the step more than a PCIe latency.
  for (std::size_t i = 1; i < band.sensitivity.size(); ++i) {
    EXPECT_GE(std::abs(band.sensitivity[i - 1].swing_s()), std::abs(band.sensitivity[i].swing_s()));
  }
  for (const auto& s : band.sensitivity) EXPECT_FALSE(s.entry.source.empty()) << s.entry.id;
  // A lower GEMM rate is a slower step.
  const auto fp8 = std::find_if(band.sensitivity.begin(), band.sensitivity.end(),
                                [](const auto& s) { return s.entry.id == "gemm.fp8.rate_scale"; });
  ASSERT_NE(fp8, band.sensitivity.end());
  EXPECT_GT(fp8->step_time_at_low_s, fp8->step_time_at_high_s);
  // The same inputs give the same band on any thread count.
  band_options.threads = 1;
  const auto again = k3::train::simulate_step_band(in.scenario, in.model, *in.topology, nullptr, plain, band_options);
  EXPECT_EQ(again.sample_step_time_s, band.sample_step_time_s);
  // This step's time is mostly kernels of one stack (the FP8 rate and the GEMM and HBM efficiencies): drawn apart,
  // their errors partly cancel, so the band is narrower than with the stack drawn as one factor.
  band_options.correlated_stacks = false;
  band_options.sensitivity = false;
  const auto apart = k3::train::simulate_step_band(in.scenario, in.model, *in.topology, nullptr, plain, band_options);
  EXPECT_LT(apart.step_time_s.p90 - apart.step_time_s.p10, band.step_time_s.p90 - band.step_time_s.p10);
}
