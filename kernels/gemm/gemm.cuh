#pragma once
// cuBLAS / cuBLASLt GEMMs in the row-major convention of gemm_ref: c[m, n] = a[m, k] * b[n, k]^T.
// In cuBLAS's column-major terms that is C^T = op_T(B) * A ("TN"), the layout FP8 requires.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_fp8.h>

#include <vector>

#include "kernels/common/device.cuh"

namespace k3::kernels {

struct GroupedGemmPlan;

class CublasContext {
 public:
  CublasContext();
  ~CublasContext();
  CublasContext(const CublasContext&) = delete;
  CublasContext& operator=(const CublasContext&) = delete;
  void set_stream(cudaStream_t s);

  void gemm_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, std::size_t m, std::size_t n,
                 std::size_t k);
  // E4M3 inputs, BF16 output, unit scales, FP32 accumulation. Requires compute capability >= 8.9.
  void gemm_fp8(const __nv_fp8_e4m3* a, const __nv_fp8_e4m3* b, __nv_bfloat16* c, std::size_t m, std::size_t n,
                std::size_t k);
  // One cublasGemmGroupedBatchedEx call: expert g multiplies a_g [tokens[g], k] by b_g [n, k]^T into c_g.
  // The pointer arrays are device arrays prepared by GroupedGemmPlan.
  void grouped_gemm_bf16(const GroupedGemmPlan& plan);

 private:
  cublasHandle_t handle_ = nullptr;
  cublasLtHandle_t lt_ = nullptr;
  cudaStream_t stream_ = nullptr;
  DeviceBuffer<unsigned char> workspace_;
  DeviceBuffer<float> unit_scale_;
};

// Device pointer arrays and per-group shapes for a grouped GEMM over packed expert rows.
struct GroupedGemmPlan {
  GroupedGemmPlan(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, const std::vector<std::size_t>& tokens,
                  std::size_t n, std::size_t k);
  int groups = 0;
  std::vector<int> m, n, k, lda, ldb, ldc, group_size;
  std::vector<cublasOperation_t> trans_a, trans_b;
  std::vector<float> alpha, beta;
  DeviceBuffer<const void*> a_ptrs, b_ptrs;
  DeviceBuffer<void*> c_ptrs;
};

void cublas_check(cublasStatus_t status, const char* what, const char* file, int line);
#define K3_CUBLAS(call) ::k3::kernels::cublas_check((call), #call, __FILE__, __LINE__)

// Converts FP32 device values to E4M3 (round to nearest, saturating).
void launch_to_fp8(const float* in, __nv_fp8_e4m3* out, std::size_t n, cudaStream_t stream);
void launch_to_bf16(const float* in, __nv_bfloat16* out, std::size_t n, cudaStream_t stream);

bool device_supports_fp8();

}  // namespace k3::kernels
