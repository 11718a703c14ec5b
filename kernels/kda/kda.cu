// KDA as a recurrent scan: one block per head, thread j owns column j of the state S [d_k, d_v] in shared
// memory. Per token: S = Diag(a) S; u = S^T k; S += b k (v - u)^T; o = S^T q (kda_ref.hpp). This is the
// decode step (the launcher takes any token count; decode passes one). The prefill forward is the chunkwise
// tensor-core kernel, kda_chunk.cu.
#include "kernels/gpu/gpu_ops.hpp"
#include "kernels/kda/kda.cuh"

namespace k3::kernels {

namespace {

constexpr unsigned kMaxD = 128;

__global__ void kda_kernel(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
                           const float* __restrict__ a, const float* __restrict__ beta, float* __restrict__ state,
                           float* __restrict__ o, unsigned tokens, unsigned heads, unsigned d) {
  extern __shared__ float s[];  // [d, d] then q, k, a [d] each
  float* sq = s + d * d;
  float* sk = sq + d;
  float* sa = sk + d;
  const unsigned h = blockIdx.x, j = threadIdx.x;
  float* gstate = state + static_cast<std::size_t>(h) * d * d;
  for (unsigned i = 0; i < d; ++i) s[i * d + j] = gstate[i * d + j];
  for (unsigned t = 0; t < tokens; ++t) {
    const std::size_t row = (static_cast<std::size_t>(t) * heads + h) * d;
    __syncthreads();
    sq[j] = q[row + j];
    sk[j] = k[row + j];
    sa[j] = a[row + j];
    __syncthreads();
    const float b = beta[static_cast<std::size_t>(t) * heads + h];
    float u = 0;
    for (unsigned i = 0; i < d; ++i) {
      const float decayed = s[i * d + j] * sa[i];
      s[i * d + j] = decayed;
      u += sk[i] * decayed;
    }
    const float delta = b * (v[row + j] - u);
    float out = 0;
    for (unsigned i = 0; i < d; ++i) {
      const float updated = s[i * d + j] + sk[i] * delta;
      s[i * d + j] = updated;
      out += updated * sq[i];
    }
    o[row + j] = out;
  }
  for (unsigned i = 0; i < d; ++i) gstate[i * d + j] = s[i * d + j];
}

}  // namespace

void launch_kda_recurrent(const float* q, const float* k, const float* v, const float* a, const float* beta,
                          float* state, float* o, std::size_t tokens, std::size_t heads, std::size_t d,
                          cudaStream_t stream) {
  K3SIM_ASSERT(d <= kMaxD, "launch_kda_recurrent: head dim at most 128");
  const std::size_t smem = (d * d + 3 * d) * sizeof(float);
  K3_CUDA(cudaFuncSetAttribute(kda_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  kda_kernel<<<static_cast<unsigned>(heads), static_cast<unsigned>(d), smem, stream>>>(
      q, k, v, a, beta, state, o, static_cast<unsigned>(tokens), static_cast<unsigned>(heads), static_cast<unsigned>(d));
  K3_CUDA(cudaGetLastError());
}

std::vector<float> gpu::kda_decode(std::span<const float> q, std::span<const float> k, std::span<const float> v,
                                   std::span<const float> a, std::span<const float> beta, std::size_t heads,
                                   std::size_t d, std::vector<float>& state) {
  DeviceBuffer<float> dq(q), dk(k), dv(v), da(a), db(beta), ds{std::span<const float>(state)}, o(heads * d);
  launch_kda_recurrent(dq.get(), dk.get(), dv.get(), da.get(), db.get(), ds.get(), o.get(), 1, heads, d, nullptr);
  K3_CUDA(cudaDeviceSynchronize());
  state = ds.download();
  return o.download();
}

}  // namespace k3::kernels
