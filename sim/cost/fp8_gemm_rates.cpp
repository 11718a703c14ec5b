#include "sim/cost/fp8_gemm_rates.hpp"

namespace k3::cost {

const char* const kDeepGemmTableSource =
    "deepseek-ai/DeepGEMM README, first release (2025-02), 'Performance' tables measured on H800 with NVCC 12.8, "
    "including the speedup column over DeepSeek's CUTLASS 3.6-based kernels";

const std::vector<Fp8GemmMeasurement>& deepgemm_dense_rows() {
  // M, N, K, groups, TFLOPS, speedup. The shapes are DeepSeek-V3's own projections (fused q_a/kv_a,
  // q_b, kv_b, o_proj, expert up/down).
  static const std::vector<Fp8GemmMeasurement> rows = {
      {4096, 2112, 7168, 1, 1058, 1.1},  {4096, 24576, 1536, 1, 990, 1.0}, {4096, 32768, 512, 1, 590, 1.0},
      {4096, 7168, 16384, 1, 1358, 1.2}, {4096, 4096, 7168, 1, 1304, 1.1}, {4096, 7168, 2048, 1, 1025, 1.1},
  };
  return rows;
}

const std::vector<Fp8GemmMeasurement>& deepgemm_grouped_rows() {
  static const std::vector<Fp8GemmMeasurement> rows = {
      {8192, 4096, 7168, 4, 1297, 1.2},
      {8192, 7168, 2048, 4, 1099, 1.2},
      {4096, 4096, 7168, 8, 1288, 1.2},
      {4096, 7168, 2048, 8, 1093, 1.1},
  };
  return rows;
}

}  // namespace k3::cost
