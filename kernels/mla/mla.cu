// MLA attention on CUDA cores: one block per (query, head), keys in tiles of 128 (one key per thread for
// the scores), online softmax across tiles, each thread accumulating up to 4 output dims. A plain kernel,
// not a tensor-core FlashAttention: the profile records what it achieves.
#include <cfloat>

#include "kernels/gpu/gpu_ops.hpp"
#include "kernels/common/test_data.hpp"
#include "kernels/mla/mla.cuh"

namespace k3::kernels {

namespace {

constexpr unsigned kThreads = 128;
constexpr unsigned kMaxOut = 4;        // dv <= 4 * 128
constexpr unsigned kMaxQk = 576;

struct AttendArgs {
  const __nv_bfloat16* q;
  std::size_t q_stride_query, q_stride_head;
  const __nv_bfloat16* k;
  std::size_t k_stride_key, k_stride_head;
  const __nv_bfloat16* v;
  std::size_t v_stride_key, v_stride_head;
  float* o;
  std::size_t o_stride_query, o_stride_head;
  unsigned dqk, dv, keys;
  bool causal;
  float scale;
};

__device__ float block_reduce(float v, bool is_max) {
  __shared__ float partial[kThreads / 32];
  for (int off = 16; off > 0; off /= 2) {
    const float other = __shfl_xor_sync(0xffffffffu, v, off);
    v = is_max ? fmaxf(v, other) : v + other;
  }
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  float total = partial[0];
  for (unsigned w = 1; w < kThreads / 32; ++w) total = is_max ? fmaxf(total, partial[w]) : total + partial[w];
  __syncthreads();
  return total;
}

__global__ void attend_kernel(AttendArgs a) {
  __shared__ float q[kMaxQk];
  __shared__ float p[kThreads];
  const std::size_t qi = blockIdx.x, h = blockIdx.y;
  const __nv_bfloat16* qrow = a.q + qi * a.q_stride_query + h * a.q_stride_head;
  for (unsigned d = threadIdx.x; d < a.dqk; d += kThreads) q[d] = __bfloat162float(qrow[d]);
  __syncthreads();
  const unsigned keys = a.causal ? static_cast<unsigned>(qi) + 1 : a.keys;
  float acc[kMaxOut] = {0, 0, 0, 0};
  float running_max = -FLT_MAX, running_sum = 0;
  for (unsigned base = 0; base < keys; base += kThreads) {
    const unsigned j = base + threadIdx.x;
    float s = -FLT_MAX;
    if (j < keys) {
      const __nv_bfloat16* krow = a.k + j * a.k_stride_key + h * a.k_stride_head;
      float dot = 0;
      for (unsigned d = 0; d < a.dqk; ++d) dot += q[d] * __bfloat162float(krow[d]);
      s = dot * a.scale;
    }
    const float tile_max = block_reduce(s, true);
    const float new_max = fmaxf(running_max, tile_max);
    const float correction = __expf(running_max - new_max);
    const float pj = j < keys ? __expf(s - new_max) : 0.0f;
    p[threadIdx.x] = pj;
    running_sum = running_sum * correction + block_reduce(pj, false);
    running_max = new_max;
    __syncthreads();
    const unsigned tile = min(kThreads, keys - base);
    for (unsigned r = 0; r < kMaxOut; ++r) {
      const unsigned d = threadIdx.x + r * kThreads;
      if (d >= a.dv) break;
      float sum = acc[r] * correction;
      for (unsigned t = 0; t < tile; ++t) {
        sum += p[t] * __bfloat162float(a.v[(base + t) * a.v_stride_key + h * a.v_stride_head + d]);
      }
      acc[r] = sum;
    }
    __syncthreads();
  }
  float* orow = a.o + qi * a.o_stride_query + h * a.o_stride_head;
  for (unsigned r = 0; r < kMaxOut; ++r) {
    const unsigned d = threadIdx.x + r * kThreads;
    if (d < a.dv) orow[d] = acc[r] / running_sum;
  }
}

}  // namespace

void launch_mla_prefill(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, float* o,
                        std::size_t tokens, std::size_t heads, std::size_t dqk, std::size_t dv, cudaStream_t stream) {
  K3SIM_ASSERT(dqk <= kMaxQk && dv <= kMaxOut * kThreads, "launch_mla_prefill: head dims too large");
  if (tokens == 0) return;
  const AttendArgs a{q, heads * dqk, dqk, k, heads * dqk, dqk, v, heads * dv, dv, o, heads * dv, dv,
                     static_cast<unsigned>(dqk), static_cast<unsigned>(dv), static_cast<unsigned>(tokens), true,
                     1.0f / sqrtf(static_cast<float>(dqk))};
  attend_kernel<<<dim3(static_cast<unsigned>(tokens), static_cast<unsigned>(heads)), kThreads, 0, stream>>>(a);
  K3_CUDA(cudaGetLastError());
}

void launch_mla_decode(const __nv_bfloat16* q, const __nv_bfloat16* cache, float* o, std::size_t heads,
                       std::size_t cache_len, std::size_t dk, std::size_t dv, float scale, cudaStream_t stream) {
  K3SIM_ASSERT(dk <= kMaxQk && dv <= kMaxOut * kThreads && dv <= dk, "launch_mla_decode: head dims too large");
  const AttendArgs a{q, 0, dk, cache, dk, 0, cache, dk, 0, o, 0, dv, static_cast<unsigned>(dk),
                     static_cast<unsigned>(dv), static_cast<unsigned>(cache_len), false, scale};
  attend_kernel<<<dim3(1, static_cast<unsigned>(heads)), kThreads, 0, stream>>>(a);
  K3_CUDA(cudaGetLastError());
}

std::vector<float> gpu::mla_prefill(std::span<const float> q, std::span<const float> k, std::span<const float> v,
                                    std::size_t tokens, std::size_t heads, std::size_t dqk, std::size_t dv) {
  DeviceBuffer<Bf16> dq(to_bf16(q)), dk(to_bf16(k)), dvv(to_bf16(v));
  DeviceBuffer<float> o(tokens * heads * dv);
  launch_mla_prefill(as_bf16(dq.get()), as_bf16(dk.get()), as_bf16(dvv.get()), o.get(), tokens, heads, dqk, dv, nullptr);
  K3_CUDA(cudaDeviceSynchronize());
  return o.download();
}

std::vector<float> gpu::mla_decode(std::span<const float> q, std::span<const float> cache, std::size_t heads,
                                   std::size_t cache_len, std::size_t dk, std::size_t dv, float scale) {
  DeviceBuffer<Bf16> dq(to_bf16(q)), dc(to_bf16(cache));
  DeviceBuffer<float> o(heads * dv);
  launch_mla_decode(as_bf16(dq.get()), as_bf16(dc.get()), o.get(), heads, cache_len, dk, dv, scale, nullptr);
  K3_CUDA(cudaDeviceSynchronize());
  return o.download();
}

}  // namespace k3::kernels
