// SiTU-GLU: memory-bound; 8 BF16 per 16-byte load when the width allows it, scalar otherwise.
#include "kernels/gpu/gpu_ops.hpp"
#include "kernels/situ_glu/situ_glu.cuh"

namespace k3::kernels {

namespace {

__device__ __forceinline__ float situ_glu_value(float a, float b) {
  const float situ = 4.0f * tanhf(a * 0.25f) / (1.0f + __expf(-a));
  return situ * (25.0f * tanhf(b * 0.04f));
}

__global__ void situ_glu_vec8(const uint4* __restrict__ gate_up, uint4* __restrict__ out, std::size_t tokens,
                              std::size_t width8) {
  const std::size_t n = tokens * width8;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t t = i / width8, c = i % width8;
    const uint4 av = gate_up[t * 2 * width8 + c];
    const uint4 bv = gate_up[t * 2 * width8 + width8 + c];
    const auto* a = reinterpret_cast<const __nv_bfloat162*>(&av);
    const auto* b = reinterpret_cast<const __nv_bfloat162*>(&bv);
    uint4 ov;
    auto* o = reinterpret_cast<__nv_bfloat162*>(&ov);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const float2 af = __bfloat1622float2(a[j]), bf = __bfloat1622float2(b[j]);
      o[j] = __floats2bfloat162_rn(situ_glu_value(af.x, bf.x), situ_glu_value(af.y, bf.y));
    }
    out[i] = ov;
  }
}

__global__ void situ_glu_scalar(const __nv_bfloat16* __restrict__ gate_up, __nv_bfloat16* __restrict__ out,
                                std::size_t tokens, std::size_t width) {
  const std::size_t n = tokens * width;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t t = i / width, c = i % width;
    out[i] = __float2bfloat16_rn(
        situ_glu_value(__bfloat162float(gate_up[t * 2 * width + c]), __bfloat162float(gate_up[t * 2 * width + width + c])));
  }
}

}  // namespace

void launch_situ_glu(const __nv_bfloat16* gate_up, __nv_bfloat16* out, std::size_t tokens, std::size_t width,
                     cudaStream_t stream) {
  constexpr unsigned kThreads = 256;
  if (width % 8 == 0) {
    const std::size_t n = tokens * (width / 8);
    situ_glu_vec8<<<blocks_for(n, kThreads), kThreads, 0, stream>>>(reinterpret_cast<const uint4*>(gate_up),
                                                                     reinterpret_cast<uint4*>(out), tokens, width / 8);
  } else {
    situ_glu_scalar<<<blocks_for(tokens * width, kThreads), kThreads, 0, stream>>>(gate_up, out, tokens, width);
  }
  K3_CUDA(cudaGetLastError());
}

std::vector<float> gpu::situ_glu(std::span<const Bf16> gate_up, std::size_t tokens, std::size_t width) {
  DeviceBuffer<Bf16> in(gate_up), out(tokens * width);
  launch_situ_glu(as_bf16(in.get()), as_bf16(out.get()), tokens, width, nullptr);
  K3_CUDA(cudaDeviceSynchronize());
  return download_bf16_as_float(out);
}

}  // namespace k3::kernels
