// MXFP8 and NVFP4 GEMMs and their quantization kernels on a Blackwell GPU, each expected value derived by hand
// from the registered efficiency (default_efficiencies.cpp), the tile/wave rule and the bytes each kernel moves.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "sim/cost/cost_model.hpp"
#include "tests/cost/gemm_op.hpp"

using namespace k3::cost;
using k3::test::kH800;

namespace {

// HGX B200 datasheet peaks (topologies/gpu_types.yaml): BF16 2.25, FP8 4.5, MXFP8 4.5, NVFP4 9 PFLOP/s; 8 TB/s.
const DeviceModel kB200{"B200", 2250e12, 4500e12, 8.0e12, 148, "test", 4500e12, 9000e12};

OpCostModel make(const DeviceModel& d, Precision p, k3::core::Provenance& prov) {
  return OpCostModel(d, nullptr, p, {}, prov);
}

// [8192, 4096] x [4096, 8192]: 128 x 256 tiles, 64 x 32 = 2048 tiles, none partial; on 148 SMs that is
// ceil(2048 / 148) = 14 waves with 2048 of 14 x 148 = 2072 tile slots busy.
constexpr double kShape = 2048.0 / 2072.0;
constexpr double kFlops = 2.0 * 8192 * 8192 * 4096;

}  // namespace

TEST(BlockScaled, Mxfp8GemmIsFlopsOverPeakTimesMeasuredEfficiencyTimesShape) {
  k3::core::Provenance prov;
  const OpCostModel c = make(kB200, Precision::mxfp8, prov);
  EXPECT_NEAR(c.gemm_shape_efficiency(8192, 8192), kShape, 1e-12);
  // flashinfer#2464 measured 3200.9 TFLOP/s of the 4500 peak: efficiency 3200.9 / 4500, so the rate is
  // 4500e12 x (3200.9 / 4500) x 2048 / 2072 = 3163.9 TFLOP/s, and each part takes 2 x 8192 x 8192 x 4096 / that.
  const auto t = c.time(k3::test::gemm_op(8192, 8192, 4096));
  EXPECT_NEAR(t.fwd, kFlops / (4500e12 * (3200.9 / 4500.0) * kShape), 1e-15);
  // Activation gradient [8192, 8192] x [8192, 4096]: output 8192 x 4096, 64 x 16 = 1024 tiles in 7 waves,
  // 1024 / 1036 busy = 2048 / 2072: the same time.
  EXPECT_NEAR(t.dgrad, t.fwd, 1e-15);
  EXPECT_NEAR(prov.value("gemm.mxfp8.efficiency"), 3200.9 / 4500.0, 1e-15);
  EXPECT_DOUBLE_EQ(prov.value("gpu.mxfp8_peak"), 4500e12);
  EXPECT_EQ(c.quantization_label(), "MXFP8 quantization");
}

TEST(BlockScaled, Nvfp4GemmAtItsOwnPeak) {
  k3::core::Provenance prov;
  const OpCostModel c = make(kB200, Precision::nvfp4, prov);
  // pytorch/ao#2427: 5.50 PFLOP/s of 9.0 dense FP4: rate 9e15 x (5.5 / 9) x 2048 / 2072.
  EXPECT_NEAR(c.time(k3::test::gemm_op(8192, 8192, 4096)).fwd, kFlops / (9000e12 * (5.50e15 / 9.00e15) * kShape), 1e-15);
  EXPECT_EQ(c.quantization_label(), "NVFP4 quantization");
  EXPECT_FALSE(prov.has("gemm.mxfp8.efficiency"));
}

TEST(BlockScaled, QuantizationWritesARowwiseAndAColumnwiseCopyFromBf16) {
  k3::core::Provenance prov;
  const OpCostModel c = make(kB200, Precision::mxfp8, prov);
  auto op = k3::test::gemm_op(4096, 4096, 7168);
  const auto t = c.time(op);
  // At 90% of 8 TB/s. MXFP8 stores 1 byte and 1/32 of a scale byte per element (q = 1.03125). The forward
  // kernel reads the [4096, 7168] BF16 input once (2 B) and writes the rowwise and the columnwise copy (2q); the
  // activation-gradient kernel does the same for the [4096, 4096] output gradient; the weight gradient reads the
  // columnwise copies and quantizes nothing.
  const double rate = 0.9 * 8.0e12, q = 1.0 + 1.0 / 32;
  EXPECT_NEAR(t.fwd_quant, (2 + 2 * q) * 4096 * 7168 / rate, 1e-15);
  EXPECT_NEAR(t.dgrad_quant, (2 + 2 * q) * 4096 * 4096 / rate, 1e-15);
  EXPECT_EQ(t.wgrad_quant, 0);
  // An input that arrives quantized (FP8 dispatch): its columnwise copy is re-quantized from the arrival in the
  // weight-gradient part (q read, q written per element).
  op.input_arrives_fp8 = true;
  const auto arrived = c.time(op);
  EXPECT_EQ(arrived.fwd_quant, 0);
  EXPECT_NEAR(arrived.wgrad_quant, 2 * q * 4096 * 7168 / rate, 1e-15);
  // NVFP4: half a byte and one E4M3 scale byte per 16 elements (q = 0.5625).
  k3::core::Provenance prov4;
  const OpCostModel c4 = make(kB200, Precision::nvfp4, prov4);
  EXPECT_NEAR(c4.time(k3::test::gemm_op(4096, 4096, 7168)).fwd_quant, (2 + 2 * 0.5625) * 4096 * 7168 / rate, 1e-15);
  // Layers that stay in BF16 (output head, gating) need neither.
  op.keeps_bf16 = true;
  EXPECT_EQ(c.time(op).fwd_quant, 0);
}

TEST(BlockScaled, RefusedOnAGpuWithoutTheFormat) {
  for (const auto p : {Precision::mxfp8, Precision::nvfp4}) {
    k3::core::Provenance prov;
    try {
      make(kH800, p, prov);
      FAIL() << "H800 has no block-scaled tensor cores";
    } catch (const k3::core::InputError& e) {
      EXPECT_EQ(e.where().key, "precision.gemm");
      EXPECT_NE(e.problem().find("H800-SXM"), std::string::npos) << e.problem();
      EXPECT_NE(e.problem().find(std::string(display_name(p))), std::string::npos) << e.problem();
    }
  }
}

TEST(BlockScaled, Fp8AndBf16RunsRegisterNoBlockScaledFigures) {
  k3::core::Provenance prov;
  make(kB200, Precision::fp8, prov);
  EXPECT_FALSE(prov.has("gpu.mxfp8_peak"));
  EXPECT_FALSE(prov.has("gpu.nvfp4_peak"));
  EXPECT_FALSE(prov.has("gemm.nvfp4.efficiency"));
}
