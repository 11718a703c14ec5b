// The calibration harness: timing statistics, curve fitting from runs, and the cpu backend end to end.
#include <gtest/gtest.h>

#include <algorithm>

#include "kernels/harness/backend.hpp"
#include "kernels/harness/calibrate.hpp"
#include "kernels/harness/profile_diff.hpp"
#include "core/error.hpp"

using namespace k3::kernels;
using k3::cost::WorkUnit;

TEST(Timing, MedianAndPercentilesInterpolate) {
  // Sorted samples 1..5: median 3; p10 at position 0.4 -> 1.4; p90 at position 3.6 -> 4.6.
  const auto t = summarize({5, 1, 4, 2, 3});
  EXPECT_DOUBLE_EQ(t.median_s, 3.0);
  EXPECT_DOUBLE_EQ(t.p10_s, 1.4);
  EXPECT_DOUBLE_EQ(t.p90_s, 4.6);
  EXPECT_EQ(t.samples_s.size(), 5u);
}

namespace {
OpRun run(std::string op, std::string cls, std::string peak, WorkUnit unit, nlohmann::json shape, double flops,
          double bytes, double seconds) {
  return {std::move(op), std::move(cls), std::move(peak), unit, std::move(shape), flops, bytes, summarize({seconds}), "test"};
}
}  // namespace

TEST(BuildProfile, PeaksFromProbesAndCurvesAsFractions) {
  const std::vector<OpRun> runs{
      // copy probes: 2e9 B in 1 ms = 2e12 B/s; a cache-sized one reaches 4e12 B/s. Peak = the largest copy's, 2e12.
      run("hbm_copy", "copy", "hbm", WorkUnit::kBytes, {{"bytes", 1e9}}, 0, 2e9, 1e-3),
      run("hbm_copy", "copy", "hbm", WorkUnit::kBytes, {{"bytes", 1e6}}, 0, 2e6, 0.5e-6),
      // GEMM probe: 1e12 FLOP in 2 ms = 5e14 FLOP/s.
      run("gemm_peak", "gemm_peak", "gemm_bf16", WorkUnit::kFlops, {{"dtype", "bf16"}}, 1e12, 0, 2e-3),
      // elementwise: 1e8 B in 1e-4 s = 1e12 B/s = 50% of peak; two runs at 1e6 B: 25% and 15% -> median 20%.
      run("situ_glu", "elementwise", "hbm", WorkUnit::kBytes, {}, 0, 1e8, 1e-4),
      run("situ_glu", "elementwise", "hbm", WorkUnit::kBytes, {}, 0, 1e6, 2e-6),
      run("situ_glu", "elementwise", "hbm", WorkUnit::kBytes, {}, 0, 1e6, 1e-6 / 0.3),
      // gemm: 1e10 FLOP in 1e-4 s = 1e14 = 20% of the GEMM peak.
      run("gemm", "gemm_bf16", "gemm_bf16", WorkUnit::kFlops, {}, 1e10, 0, 1e-4),
  };
  const auto p = build_profile({"cpu", "test", "", "", "", 0, 0, 0, 1}, runs, "now");
  EXPECT_DOUBLE_EQ(p.hbm_bytes_per_s(), 2e12);
  EXPECT_DOUBLE_EQ(p.gemm_flops_per_s("bf16"), 5e14);
  ASSERT_TRUE(p.has("elementwise"));
  EXPECT_NEAR(p.efficiency("elementwise", 1e8), 0.5, 1e-12);
  EXPECT_NEAR(p.efficiency("elementwise", 1e6), 0.2, 1e-12);
  EXPECT_NEAR(p.efficiency("gemm_bf16", 1e10), 0.2, 1e-12);
  EXPECT_NEAR(p.efficiency("copy", 2e9), 1.0, 1e-12);
  EXPECT_FALSE(p.has("gemm_peak"));
  EXPECT_EQ(p.measurements().size(), runs.size());
  EXPECT_FALSE(p.measured_on_gpu());
}

TEST(CpuBackend, QuickCalibrationProducesAUsableProfile) {
  auto backend = make_cpu_backend();
  const auto p = calibrate(*backend, {"situ_glu", "rmsnorm"}, true, "now");
  EXPECT_EQ(p.device().backend, "cpu");
  EXPECT_GT(p.hbm_bytes_per_s(), 0);
  EXPECT_TRUE(p.has_gemm_peak("fp32"));
  EXPECT_TRUE(p.has("elementwise"));
  EXPECT_TRUE(p.has("norm"));
  EXPECT_FALSE(p.has("router"));  // not requested
  // Efficiency is a positive fraction of this CPU's memcpy bandwidth.
  EXPECT_GT(p.efficiency("norm", 1e6), 0);
  // Every run is kept: copy probe 2 sizes + GEMM probe 1 + situ_glu 3 token counts + rmsnorm 2 widths x 3.
  EXPECT_EQ(p.measurements().size(), 2u + 1u + 3u + 6u);
  // Round trip through JSON and diff against itself: every ratio is exactly 1.
  const auto again = k3::cost::CalibrationProfile::from_json(p.to_json(), "self");
  const auto d = diff_profiles(p, again);
  for (const auto& c : d["op_classes"]) {
    for (const auto& pt : c["points"]) EXPECT_DOUBLE_EQ(pt["ratio_b_over_a"].get<double>(), 1.0);
  }
}

TEST(CpuBackend, UnknownOpIsBadInput) {
  auto backend = make_cpu_backend();
  EXPECT_THROW((void)calibrate(*backend, {"no_such_op"}, true, "now"), k3::core::InputError);
  const auto ops = calibration_ops(*backend);
  EXPECT_EQ(ops.front(), "hbm_copy");
  EXPECT_NE(std::find(ops.begin(), ops.end(), "grouped_gemm"), ops.end());
}

TEST(CpuBackend, TimesTheTiledAttentionAndChunkedKdaReferences) {
  // Quick: one shape each (64 prefill tokens, 256 cached tokens, 64 KDA tokens, one decode step), 2 heads
  // (16 for the decode, a head group of the kernel).
  auto backend = make_cpu_backend();
  const std::vector<std::pair<std::string, std::string>> ops{
      {"mla_prefill", "attention"}, {"mla_decode", "attention_decode"}, {"kda_forward", "kda"}, {"kda_decode", "kda_decode"}};
  for (const auto& [op, cls] : ops) {
    const auto runs = backend->measure(op, true);
    ASSERT_EQ(runs.size(), 1u) << op;
    EXPECT_EQ(runs[0].op_class, cls);
    EXPECT_GT(runs[0].timing.median_s, 0) << op;
  }
  // KDA forward FLOPs at 64 tokens, 2 heads, d 128, chunk 64: 2 * (6*64*128^2 + 3*64*64*128 + 64*64^2)
  // = 2 * (6,291,456 + 1,572,864 + 262,144) = 16,252,928.
  EXPECT_DOUBLE_EQ(backend->measure("kda_forward", true)[0].flops, 16252928.0);
}
