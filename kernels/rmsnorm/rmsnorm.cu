// RMSNorm: one block per row; the row is read twice (sum of squares, then scale), the second read mostly
// from L1/L2 since a 7168-wide BF16 row is 14 KiB.
#include "kernels/gpu/gpu_ops.hpp"
#include "kernels/rmsnorm/rmsnorm.cuh"

namespace k3::kernels {

namespace {

constexpr unsigned kThreads = 256;

__device__ float block_sum(float v) {
  __shared__ float partial[kThreads / 32];
  for (int off = 16; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffffu, v, off);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  float total = 0;
  for (unsigned w = 0; w < kThreads / 32; ++w) total += partial[w];
  return total;
}

__global__ void rmsnorm_kernel(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ weight,
                               __nv_bfloat16* __restrict__ out, std::size_t width, float eps) {
  const __nv_bfloat16* row = x + blockIdx.x * width;
  __nv_bfloat16* dst = out + blockIdx.x * width;
  float sum_sq = 0;
  if (width % 2 == 0) {
    const auto* row2 = reinterpret_cast<const __nv_bfloat162*>(row);
    for (std::size_t c = threadIdx.x; c < width / 2; c += kThreads) {
      const float2 v = __bfloat1622float2(row2[c]);
      sum_sq += v.x * v.x + v.y * v.y;
    }
  } else {
    for (std::size_t c = threadIdx.x; c < width; c += kThreads) {
      const float v = __bfloat162float(row[c]);
      sum_sq += v * v;
    }
  }
  const float inv_rms = rsqrtf(block_sum(sum_sq) / static_cast<float>(width) + eps);
  for (std::size_t c = threadIdx.x; c < width; c += kThreads) {
    dst[c] = __float2bfloat16_rn(__bfloat162float(row[c]) * inv_rms * __bfloat162float(weight[c]));
  }
}

}  // namespace

void launch_rmsnorm(const __nv_bfloat16* x, const __nv_bfloat16* weight, __nv_bfloat16* out, std::size_t tokens,
                    std::size_t width, float eps, cudaStream_t stream) {
  if (tokens == 0) return;
  rmsnorm_kernel<<<static_cast<unsigned>(tokens), kThreads, 0, stream>>>(x, weight, out, width, eps);
  K3_CUDA(cudaGetLastError());
}

std::vector<float> gpu::rmsnorm(std::span<const Bf16> x, std::span<const Bf16> weight, std::size_t tokens,
                                std::size_t width, float eps) {
  DeviceBuffer<Bf16> dx(x), dw(weight), out(tokens * width);
  launch_rmsnorm(as_bf16(dx.get()), as_bf16(dw.get()), as_bf16(out.get()), tokens, width, eps, nullptr);
  K3_CUDA(cudaDeviceSynchronize());
  return download_bf16_as_float(out);
}

}  // namespace k3::kernels
