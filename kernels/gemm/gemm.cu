#include "kernels/gemm/gemm.cuh"
#include "kernels/gpu/gpu_ops.hpp"

namespace k3::kernels {

namespace {

constexpr std::size_t kWorkspaceBytes = 64ull << 20;

__global__ void to_fp8_kernel(const float* __restrict__ in, __nv_fp8_e4m3* __restrict__ out, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    out[i] = __nv_fp8_e4m3(in[i]);
  }
}

__global__ void to_bf16_kernel(const float* __restrict__ in, __nv_bfloat16* __restrict__ out, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    out[i] = __float2bfloat16_rn(in[i]);
  }
}

int as_int(std::size_t v) {
  K3SIM_ASSERT(v <= 0x7fffffffu, "GEMM dimension exceeds int");
  return static_cast<int>(v);
}

}  // namespace

void cublas_check(cublasStatus_t status, const char* what, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw core::InternalError(std::string(file) + ":" + std::to_string(line) + ": " + what +
                              " failed with cuBLAS status " + std::to_string(static_cast<int>(status)));
  }
}

void launch_to_fp8(const float* in, __nv_fp8_e4m3* out, std::size_t n, cudaStream_t stream) {
  to_fp8_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(in, out, n);
  K3_CUDA(cudaGetLastError());
}

void launch_to_bf16(const float* in, __nv_bfloat16* out, std::size_t n, cudaStream_t stream) {
  to_bf16_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(in, out, n);
  K3_CUDA(cudaGetLastError());
}

bool device_supports_fp8() {
  int major = 0, minor = 0;
  K3_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  K3_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
  return major * 10 + minor >= 89;
}

CublasContext::CublasContext() : workspace_(kWorkspaceBytes), unit_scale_(1) {
  K3_CUBLAS(cublasCreate(&handle_));
  K3_CUBLAS(cublasLtCreate(&lt_));
  K3_CUBLAS(cublasSetWorkspace(handle_, workspace_.get(), kWorkspaceBytes));
  const float one = 1.0f;
  unit_scale_.upload(std::span<const float>(&one, 1));
}

CublasContext::~CublasContext() {
  if (lt_) cublasLtDestroy(lt_);
  if (handle_) cublasDestroy(handle_);
}

void CublasContext::set_stream(cudaStream_t s) {
  stream_ = s;
  K3_CUBLAS(cublasSetStream(handle_, s));
}

void CublasContext::gemm_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, std::size_t m,
                              std::size_t n, std::size_t k) {
  const float alpha = 1.0f, beta = 0.0f;
  K3_CUBLAS(cublasGemmEx(handle_, CUBLAS_OP_T, CUBLAS_OP_N, as_int(n), as_int(m), as_int(k), &alpha, b, CUDA_R_16BF,
                         as_int(k), a, CUDA_R_16BF, as_int(k), &beta, c, CUDA_R_16BF, as_int(n), CUBLAS_COMPUTE_32F,
                         CUBLAS_GEMM_DEFAULT));
}

void CublasContext::gemm_fp8(const __nv_fp8_e4m3* a, const __nv_fp8_e4m3* b, __nv_bfloat16* c, std::size_t m,
                             std::size_t n, std::size_t k) {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  K3_CUBLAS(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t t = CUBLAS_OP_T, nop = CUBLAS_OP_N;
  K3_CUBLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t));
  K3_CUBLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &nop, sizeof nop));
  const float* scale = unit_scale_.get();
  K3_CUBLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale, sizeof scale));
  K3_CUBLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale, sizeof scale));
  // cuBLAS's A is our weights b [n, k] (column-major k x n, transposed); its B is our activations a.
  K3_CUBLAS(cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, k, n, static_cast<std::int64_t>(k)));
  K3_CUBLAS(cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, k, m, static_cast<std::int64_t>(k)));
  K3_CUBLAS(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, n, m, static_cast<std::int64_t>(n)));
  K3_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
  const std::size_t ws = kWorkspaceBytes;
  K3_CUBLAS(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  K3_CUBLAS(cublasLtMatmulAlgoGetHeuristic(lt_, desc, la, lb, lc, lc, pref, 1, &heuristic, &found));
  K3SIM_ASSERT(found > 0, "cuBLASLt found no FP8 algorithm for this shape");
  const float alpha = 1.0f, beta = 0.0f;
  K3_CUBLAS(cublasLtMatmul(lt_, desc, &alpha, b, la, a, lb, &beta, c, lc, c, lc, &heuristic.algo, workspace_.get(),
                           kWorkspaceBytes, stream_));
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(lc);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatmulDescDestroy(desc);
}

GroupedGemmPlan::GroupedGemmPlan(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c,
                                 const std::vector<std::size_t>& tokens, std::size_t n_dim, std::size_t k_dim)
    : groups(static_cast<int>(tokens.size())), a_ptrs(tokens.size()), b_ptrs(tokens.size()), c_ptrs(tokens.size()) {
  std::vector<const void*> ap, bp;
  std::vector<void*> cp;
  std::size_t row = 0;
  for (std::size_t g = 0; g < tokens.size(); ++g) {
    // Column-major view as in gemm_bf16: m_cublas = n, n_cublas = tokens, A = weights (T), B = activations.
    m.push_back(as_int(n_dim));
    n.push_back(as_int(tokens[g]));
    k.push_back(as_int(k_dim));
    lda.push_back(as_int(k_dim));
    ldb.push_back(as_int(k_dim));
    ldc.push_back(as_int(n_dim));
    group_size.push_back(1);
    trans_a.push_back(CUBLAS_OP_T);
    trans_b.push_back(CUBLAS_OP_N);
    alpha.push_back(1.0f);
    beta.push_back(0.0f);
    ap.push_back(b + g * n_dim * k_dim);
    bp.push_back(a + row * k_dim);
    cp.push_back(c + row * n_dim);
    row += tokens[g];
  }
  a_ptrs.upload(ap);
  b_ptrs.upload(bp);
  c_ptrs.upload(cp);
}

void CublasContext::grouped_gemm_bf16(const GroupedGemmPlan& p) {
  K3_CUBLAS(cublasGemmGroupedBatchedEx(handle_, p.trans_a.data(), p.trans_b.data(), p.m.data(), p.n.data(), p.k.data(),
                                       p.alpha.data(), p.a_ptrs.get(), CUDA_R_16BF, p.lda.data(), p.b_ptrs.get(),
                                       CUDA_R_16BF, p.ldb.data(), p.beta.data(), p.c_ptrs.get(), CUDA_R_16BF,
                                       p.ldc.data(), p.groups, p.group_size.data(), CUBLAS_COMPUTE_32F));
}

bool gpu::fp8_supported() { return device_supports_fp8(); }

std::vector<float> gpu::gemm(std::span<const float> a, std::span<const float> b, std::size_t m, std::size_t n,
                             std::size_t k, const std::string& dtype) {
  DeviceBuffer<float> da(a), db(b);
  DeviceBuffer<Bf16> dc(m * n);
  CublasContext ctx;
  if (dtype == "fp8") {
    DeviceBuffer<__nv_fp8_e4m3> a8(a.size()), b8(b.size());
    launch_to_fp8(da.get(), a8.get(), a.size(), nullptr);
    launch_to_fp8(db.get(), b8.get(), b.size(), nullptr);
    ctx.gemm_fp8(a8.get(), b8.get(), as_bf16(dc.get()), m, n, k);
  } else {
    DeviceBuffer<Bf16> a16(a.size()), b16(b.size());
    launch_to_bf16(da.get(), as_bf16(a16.get()), a.size(), nullptr);
    launch_to_bf16(db.get(), as_bf16(b16.get()), b.size(), nullptr);
    ctx.gemm_bf16(as_bf16(a16.get()), as_bf16(b16.get()), as_bf16(dc.get()), m, n, k);
  }
  K3_CUDA(cudaDeviceSynchronize());
  return download_bf16_as_float(dc);
}

std::vector<float> gpu::grouped_gemm(std::span<const float> a, std::span<const float> b,
                                     std::span<const std::size_t> tokens, std::size_t n, std::size_t k) {
  std::size_t rows = 0;
  for (std::size_t t : tokens) rows += t;
  DeviceBuffer<float> da(a), db(b);
  DeviceBuffer<Bf16> a16(a.size()), b16(b.size()), dc(rows * n);
  launch_to_bf16(da.get(), as_bf16(a16.get()), a.size(), nullptr);
  launch_to_bf16(db.get(), as_bf16(b16.get()), b.size(), nullptr);
  CublasContext ctx;
  GroupedGemmPlan plan(as_bf16(a16.get()), as_bf16(b16.get()), as_bf16(dc.get()),
                       std::vector<std::size_t>(tokens.begin(), tokens.end()), n, k);
  ctx.grouped_gemm_bf16(plan);
  K3_CUDA(cudaDeviceSynchronize());
  return download_bf16_as_float(dc);
}

}  // namespace k3::kernels
