// Router: one block per token. Biased scores live in shared memory; each of the k (+1 for the QB cutoff)
// selections is a block-wide argmax with ties to the lower index, the same rule as route_ref.
#include <cfloat>

#include "kernels/gpu/gpu_ops.hpp"
#include "kernels/router/router.cuh"

namespace k3::kernels {

namespace {

constexpr unsigned kThreads = 128;
constexpr std::size_t kMaxExperts = 1024;
constexpr std::size_t kMaxNodes = 64;

struct Best {
  float value;
  int index;
};

__device__ __forceinline__ Best better(Best a, Best b) {
  if (b.index < 0) return a;
  if (a.index < 0) return b;
  return (b.value > a.value || (b.value == a.value && b.index < a.index)) ? b : a;
}

// Argmax over values[i] for i < n with allowed[i]; every thread gets the result.
__device__ Best block_argmax(const float* values, const bool* allowed, int n) {
  __shared__ Best partial[kThreads / 32];
  Best best{-FLT_MAX, -1};
  for (int i = threadIdx.x; i < n; i += kThreads) {
    if (allowed[i]) best = better(best, Best{values[i], i});
  }
  for (int off = 16; off > 0; off /= 2) {
    Best other{__shfl_xor_sync(0xffffffffu, best.value, off), __shfl_xor_sync(0xffffffffu, best.index, off)};
    best = better(best, other);
  }
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = best;
  __syncthreads();
  Best total{-FLT_MAX, -1};
  for (unsigned w = 0; w < kThreads / 32; ++w) total = better(total, partial[w]);
  __syncthreads();  // partial is reused by the next call
  return total;
}

__global__ void router_kernel(const float* __restrict__ logits, const float* __restrict__ bias,
                              std::int32_t* __restrict__ expert, float* __restrict__ gate, float* __restrict__ cutoff,
                              int experts, int top_k, int nodes, int max_nodes) {
  __shared__ float score[kMaxExperts], biased[kMaxExperts], node_score[kMaxNodes];
  __shared__ bool allowed[kMaxExperts], node_open[kMaxNodes];
  __shared__ bool node_kept[kMaxNodes];
  const std::size_t t = blockIdx.x;
  for (int e = threadIdx.x; e < experts; e += kThreads) {
    const float s = 1.0f / (1.0f + expf(-logits[t * experts + e]));
    score[e] = s;
    biased[e] = s + bias[e];
    allowed[e] = true;
  }
  __syncthreads();
  if (max_nodes > 0 && max_nodes < nodes) {
    const int per_node = experts / nodes;
    for (int n = threadIdx.x; n < nodes; n += kThreads) {
      float first = -INFINITY, second = -INFINITY;
      for (int e = n * per_node; e < (n + 1) * per_node; ++e) {
        if (biased[e] > first) {
          second = first;
          first = biased[e];
        } else if (biased[e] > second) {
          second = biased[e];
        }
      }
      node_score[n] = per_node >= 2 ? first + second : first;
      node_open[n] = true;
      node_kept[n] = false;
    }
    __syncthreads();
    for (int m = 0; m < max_nodes; ++m) {
      const Best b = block_argmax(node_score, node_open, nodes);
      if (threadIdx.x == 0) {
        node_open[b.index] = false;
        node_kept[b.index] = true;
      }
      __syncthreads();
    }
    for (int e = threadIdx.x; e < experts; e += kThreads) allowed[e] = node_kept[e / per_node];
    __syncthreads();
  }
  float chosen_sum = 0;  // thread 0's running sum, in selection order like the reference
  for (int j = 0; j < top_k; ++j) {
    const Best b = block_argmax(biased, allowed, experts);
    if (threadIdx.x == 0) {
      allowed[b.index] = false;
      expert[t * top_k + j] = b.index;
      chosen_sum += score[b.index];
    }
    __syncthreads();
  }
  const Best next = block_argmax(biased, allowed, experts);
  if (threadIdx.x == 0) {
    cutoff[t] = next.index < 0 ? -INFINITY : next.value;
    for (int j = 0; j < top_k; ++j) gate[t * top_k + j] = score[expert[t * top_k + j]] / chosen_sum;
  }
}

}  // namespace

void launch_router(const float* logits, const float* bias, std::int32_t* expert, float* gate, float* cutoff,
                   std::size_t tokens, const RouterShape& shape, cudaStream_t stream) {
  K3SIM_ASSERT(shape.experts <= kMaxExperts && shape.nodes <= kMaxNodes && shape.experts % shape.nodes == 0,
               "launch_router: unsupported shape");
  if (tokens == 0) return;
  router_kernel<<<static_cast<unsigned>(tokens), kThreads, 0, stream>>>(
      logits, bias, expert, gate, cutoff, static_cast<int>(shape.experts), static_cast<int>(shape.top_k),
      static_cast<int>(shape.nodes), static_cast<int>(shape.max_nodes));
  K3_CUDA(cudaGetLastError());
}

RouterOutput gpu::route(std::span<const float> logits, std::span<const float> bias, std::size_t tokens,
                        const RouterShape& shape) {
  DeviceBuffer<float> dl(logits), db(bias), gate(tokens * shape.top_k), cutoff(tokens);
  DeviceBuffer<std::int32_t> expert(tokens * shape.top_k);
  launch_router(dl.get(), db.get(), expert.get(), gate.get(), cutoff.get(), tokens, shape, nullptr);
  K3_CUDA(cudaDeviceSynchronize());
  return RouterOutput{expert.download(), gate.download(), cutoff.download()};
}

}  // namespace k3::kernels
