// The cost model's FP8 GEMM rates, precisions and quantization kernels, each expected value derived by
// hand from the DeepGEMM table (sim/cost/fp8_gemm_rates.cpp) and the tile/wave rule.
#include "sim/cost/cost_model.hpp"
#include "tests/cost/gemm_op.hpp"
#include "core/error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace k3::cost;
using k3::test::kH800;

namespace {


// A cost model with the shipped defaults; the provenance registry it reads them from is not needed after.
OpCostModel make(const DeviceModel& d, Precision p, KernelChoice k = {}) {
  k3::core::Provenance prov;
  return OpCostModel(d, nullptr, p, k, prov);
}

}  // namespace

TEST(CostModel, Fp8RateAtAMeasuredKIsTheTableRowOverItsOwnQuantizationCappedAtTheFastestRow) {
  const OpCostModel c = make(kH800, k3::cost::Precision::fp8);
  // Row M 4096, N 7168, K 16384: 1358 TFLOP/s of 1979. Tiles 128x256: 32 x 28 = 896 tiles on 132 SMs is
  // 7 waves, 896 / 924 = 0.969697 busy; no partial tile. 1358 / 1979 / 0.969697 = 0.707654, above the
  // fastest measured dense row (1358 / 1979 = 0.686205), so the cap holds it there.
  EXPECT_NEAR(c.fp8_gemm_efficiency(16384, false), 1358.0 / 1979.0, 1e-12);
  // Beyond the last row the curve is clamped, never extrapolated.
  EXPECT_DOUBLE_EQ(c.fp8_gemm_efficiency(65536, false), c.fp8_gemm_efficiency(16384, false));
  // K 512 (N 32768): 32 x 128 = 4096 tiles, 32 waves, 4096 / 4224 busy: 590 / 1979 / 0.969697 = 0.307447.
  EXPECT_NEAR(c.fp8_gemm_efficiency(512, false), 590.0 / 1979.0 / (4096.0 / 4224.0), 1e-12);
}

TEST(CostModel, Fp8RateBetweenRowsIsLinearInLogK) {
  const OpCostModel c = make(kH800, k3::cost::Precision::fp8);
  // K 2048 (N 7168): 1025 / 1979 / 0.969697. K 7168 holds two rows, averaged: N 4096 (32 x 16 = 512 tiles,
  // 4 waves, 512 / 528) 1304 / 1979 / 0.969697, and N 2112 (9 tiles across, 2112 / 2304 of the last one
  // used; 288 tiles, 3 waves, 288 / 396) 1058 / 1979 / (0.916667 x 0.727273): mean 0.740696, capped at the
  // fastest row 1358 / 1979 = 0.686205 (the uncapped point would be 1466 TFLOP/s, faster than any row).
  // Halfway in log K is the mean of the two points.
  const double at2048 = 1025.0 / 1979.0 / (896.0 / 924.0);
  const double at7168 = std::min(
      1358.0 / 1979.0, 0.5 * (1304.0 / 1979.0 / (512.0 / 528.0) + 1058.0 / 1979.0 / ((2112.0 / 2304.0) * (288.0 / 396.0))));
  EXPECT_NEAR(at7168, 1358.0 / 1979.0, 1e-12);
  EXPECT_NEAR(c.fp8_gemm_efficiency(std::sqrt(2048.0 * 7168.0), false), 0.5 * (at2048 + at7168), 1e-12);
}

TEST(CostModel, OlderKernelsAreTheTableOverItsSpeedupColumn) {
  const OpCostModel deepgemm = make(kH800, k3::cost::Precision::fp8);
  const OpCostModel cutlass = make(kH800, k3::cost::Precision::fp8, {k3::cost::AttentionKernel::flash, k3::cost::Fp8GemmKernels::cutlass_3_6, {}, nullptr});
  // The K 16384 row has speedup 1.2: 1358 / 1.2 / 1979 / 0.969697 = 0.589712, below the older kernels' fastest
  // row (1304 / 1.1 / 1979 = 0.599017), so uncapped; DeepGEMM's own point is capped at 1358 / 1979.
  EXPECT_NEAR(cutlass.fp8_gemm_efficiency(16384, false), 1358.0 / 1.2 / 1979.0 / (896.0 / 924.0), 1e-12);
  EXPECT_NEAR(deepgemm.fp8_gemm_efficiency(16384, false), 1358.0 / 1979.0, 1e-12);
}

TEST(CostModel, EachGemmPartReducesOverItsOwnK) {
  const OpCostModel c = make(kH800, k3::cost::Precision::fp8);
  // kv_b-like [4096, 512] x [512, 32768]: forward reduces over K 512; the activation gradient
  // [4096, 32768] x [32768, 512] over 32768 (clamped to the K 16384 row); the weight gradient
  // [32768, 4096] x [4096, 512] over the 4096 tokens. The forward is the slowest per FLOP.
  const auto t = c.time(k3::test::gemm_op(4096, 32768, 512));
  const double flops = 2.0 * 4096 * 32768 * 512;
  // Forward: K 512 rate, output 4096 x 32768 (4096 tiles, 32 waves): 0.307447 x 0.969697 of 1979 TFLOP/s.
  EXPECT_NEAR(t.fwd, flops / (1979e12 * c.fp8_gemm_efficiency(512, false) * (4096.0 / 4224.0)), 1e-15);
  // Activation gradient: output 4096 x 512 = 32 x 2 = 64 tiles, fewer than the 132 SMs: the kernel's smaller
  // blocks keep every SM busy (no wave quantization).
  EXPECT_NEAR(t.dgrad, flops / (1979e12 * c.fp8_gemm_efficiency(32768, false)), 1e-15);
  EXPECT_GT(t.fwd, t.wgrad);
}

TEST(CostModel, HeadAndGatingStayInBf16) {
  const OpCostModel c = make(kH800, k3::cost::Precision::fp8);
  auto head = k3::test::gemm_op(4096, 129280, 7168);
  const auto fp8 = c.time(head);
  head.keeps_bf16 = true;
  const auto bf16 = c.time(head);
  // BF16: 792.1 / 989 of 989 TFLOP/s times the shape's quantization; no quantization kernels.
  EXPECT_NEAR(bf16.fwd, head.fwd_flops / (792.1e12 * c.gemm_shape_efficiency(4096, 129280)), 1e-12);
  EXPECT_GT(bf16.fwd, fp8.fwd);
  EXPECT_EQ(bf16.fwd_quant, 0);
  EXPECT_GT(fp8.fwd_quant, 0);
}

TEST(CostModel, Fp8QuantizationKernelsAreCostedByTheirBytes) {
  const OpCostModel c = make(kH800, k3::cost::Precision::fp8);
  auto op = k3::test::gemm_op(4096, 4096, 7168);
  const auto t = c.time(op);
  // At 90% of 3.35 TB/s: forward reads BF16 and writes FP8 of the [4096, 7168] input (3 B/element); the
  // activation gradient does that for the [4096, 4096] output gradient; the weight gradient re-quantizes
  // both transposed from FP8 (2 B/element each).
  const double rate = 0.9 * 3.35e12;
  EXPECT_NEAR(t.fwd_quant, 3.0 * 4096 * 7168 / rate, 1e-15);
  EXPECT_NEAR(t.dgrad_quant, 3.0 * 4096 * 4096 / rate, 1e-15);
  EXPECT_NEAR(t.wgrad_quant, (2.0 * 4096 * 4096 + 2.0 * 4096 * 7168) / rate, 1e-15);
  // An input that came through the FP8 dispatch is not quantized again.
  op.input_arrives_fp8 = true;
  EXPECT_EQ(c.time(op).fwd_quant, 0);
  // BF16 GEMMs need none.
  const OpCostModel bf16 = make(kH800, k3::cost::Precision::bf16);
  EXPECT_EQ(bf16.time(k3::test::gemm_op(4096, 4096, 7168)).fwd_quant, 0);
}

// A weight gradient accumulated into FP32 main gradients reads and writes 4 B per element where the GEMM alone writes
// 2 B: 6 B more, a floor at 90% of 3.35 TB/s under the kernel (gemm_op's operand bytes are 0). Weight 4096 x 4096:
// 4096 x 4096 x 6 = 100,663,296 B -> 33.39 us; with BF16 main gradients 2 x 2 - 2 = 2 B -> 11.13 us.
// - 64 tokens: 2 x 64 x 4096 x 4096 = 2.1 GFLOP, a few us on 989 TFLOP/s: the floor sets the time.
// - 16,384 tokens: 550 GFLOP, over 500 us: above the floor, unchanged.
TEST(CostModel, WeightGradientAccumulationBoundsAMemoryBoundGemmFromBelow) {
  const double rate = 0.9 * 3.35e12;
  KernelChoice fp32;
  fp32.main_grad_bytes = 4;
  KernelChoice bf16_grads;
  bf16_grads.main_grad_bytes = 2;
  const OpCostModel plain = make(kH800, Precision::bf16);
  const OpCostModel accumulating = make(kH800, Precision::bf16, fp32);
  const OpCostModel accumulating_bf16 = make(kH800, Precision::bf16, bf16_grads);
  const auto few = k3::test::gemm_op(64, 4096, 4096);
  EXPECT_LT(plain.time(few).wgrad, 10e-6);
  EXPECT_NEAR(accumulating.time(few).wgrad, 4096.0 * 4096 * 6 / rate, 1e-12);
  EXPECT_NEAR(accumulating_bf16.time(few).wgrad, 4096.0 * 4096 * 2 / rate, 1e-12);
  // The forward and the activation gradient do not accumulate.
  EXPECT_DOUBLE_EQ(accumulating.time(few).fwd, plain.time(few).fwd);
  EXPECT_DOUBLE_EQ(accumulating.time(few).dgrad, plain.time(few).dgrad);
  const auto many = k3::test::gemm_op(16384, 4096, 4096);
  EXPECT_GT(plain.time(many).wgrad, 500e-6);
  EXPECT_DOUBLE_EQ(accumulating.time(many).wgrad, plain.time(many).wgrad);
}

// A permute's backward moves its stated bytes once at the HBM rate, not twice the forward's traffic.
TEST(CostModel, APermutesBackwardIsItsOwnBytes) {
  const OpCostModel c = make(kH800, Precision::bf16);
  k3::model::Op permute;
  permute.name = "routed_permute";
  permute.kind = k3::model::OpKind::Elementwise;
  permute.shape = k3::model::ElementwiseShape{1e8, 0};
  permute.read_bytes = permute.write_bytes = 1e8;  // FP8 rows forward
  permute.backward_bytes = 3e8;                    // a gradient read and written
  const double rate = 0.9 * 3.35e12;
  EXPECT_NEAR(c.time(permute).fwd, 2e8 / rate, 1e-12);
  EXPECT_NEAR(c.time(permute).dgrad, 3e8 / rate, 1e-12);
  permute.backward_bytes = 0;  // the elementwise rule: twice the forward's 2e8
  EXPECT_NEAR(c.time(permute).dgrad, 4e8 / rate, 1e-12);
}

TEST(CostModel, Bf16GemmKernelGenerationPicksItsMeasurement) {
  const DeviceModel a100{"A100-SXM-80GB", 312e12, 0, 2.0e12, 108, "test"};
  const OpCostModel cuda12 = make(a100, k3::cost::Precision::bf16);
  k3::cost::KernelChoice older;
  older.bf16 = k3::cost::Bf16GemmKernels::cuda11;
  const OpCostModel cuda11 = make(a100, k3::cost::Precision::bf16, older);
  // [8192 x 8192] output in 128 x 128 tiles: 4096 tiles over 108 SMs = 37.9 waves, run as 38.
  const double quantization = 4096.0 / 108 / 38;
  EXPECT_NEAR(cuda12.gemm_shape_efficiency(8192, 8192), quantization, 1e-12);
  const auto op = k3::test::gemm_op(8192, 8192, 8192);
  // CUDA 12.1 (MAMF): 267.9 TFLOP/s; CUDA 11.3 (Fire-Flyer SC24 artifact): 263 TFLOP/s; both times the
  // shape's quantization.
  EXPECT_NEAR(cuda12.time(op).fwd, op.fwd_flops / (267.9e12 * quantization), 1e-12);
  EXPECT_NEAR(cuda11.time(op).fwd, op.fwd_flops / (263e12 * quantization), 1e-12);
  // No CUDA 11 measurement for Hopper: an input error naming the key, not a silent fallback.
  try {
    const OpCostModel h800 = make(kH800, k3::cost::Precision::bf16, older);
    FAIL() << "H800 with cuda11 kernels must be refused";
  } catch (const k3::core::InputError& e) {
    EXPECT_EQ(e.where().key, "bf16_gemm_kernels");
  }
}
