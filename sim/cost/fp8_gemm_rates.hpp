#pragma once
// Measured rates of FP8 GEMMs with fine-grained scaling (1x128 activation tiles, 128x128 weight blocks,
// as DeepSeek-V3 trains), from the first DeepGEMM release's performance table (H800, NVCC 12.8), with the
// speedup the same table gives over DeepSeek's earlier "internally and carefully optimized implementation
// based on CUTLASS 3.6" - the kernels of DeepSeek-V3's 2024 training run.
//
// Such kernels promote partial sums from the tensor cores to CUDA cores every 128 elements of K, so their
// efficiency follows the reduction length K far more than the output shape: 30% of the FP8 peak at K = 512,
// 69% at K = 16384 for M = 4096. The cost model interpolates between the rows in log K (clamping outside
// them) and applies its own tile and wave quantization for the op's output shape.
#include <string>
#include <vector>

#include "sim/cost/calibration_profile.hpp"

namespace k3::cost {

enum class Fp8GemmKernels { deepgemm, cutlass_3_6 };

struct Fp8GemmMeasurement {
  double m = 0, n = 0, k = 0;  // per group for grouped GEMMs
  int groups = 1;
  double tflops = 0;           // DeepGEMM, H800
  double speedup = 1;          // DeepGEMM over the CUTLASS 3.6-based kernels
};

// The rows with M = 4096 of "Normal GEMMs for dense models" (training-sized; the M = 64 and 128 rows are
// decoding shapes) and all rows of "Grouped GEMMs for MoE models (contiguous layout)".
const std::vector<Fp8GemmMeasurement>& deepgemm_dense_rows();
const std::vector<Fp8GemmMeasurement>& deepgemm_grouped_rows();
extern const char* const kDeepGemmTableSource;
inline constexpr double kH800Fp8PeakTflops = 1979;  // dense FP8 peak of the H800 SXM the table was measured on

// Efficiency (of the FP8 peak) against K, one point per distinct K (rows sharing a K are averaged); `work`
// of each point is its K.
struct Fp8EfficiencyCurve {
  std::vector<cost::EfficiencyPoint> points;  // increasing K
  double at(double k) const { return points.empty() ? 0 : cost::interpolate_log_work(points, k); }
};

}  // namespace k3::cost
