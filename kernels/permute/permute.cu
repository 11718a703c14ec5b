// Dispatch layout without atomics on positions, so it is deterministic: copies are cut into chunks of 1024;
// per-chunk expert counts are scanned along chunks, then one warp per chunk assigns ranks 32 copies at a
// time (__match_any_sync groups lanes with the same expert; lower lanes go first).
#include "kernels/gpu/gpu_ops.hpp"
#include "kernels/permute/permute.cuh"

namespace k3::kernels {

namespace {

constexpr unsigned kChunk = 1024;
constexpr unsigned kMaxExperts = 1024;

__global__ void chunk_count_kernel(const std::int32_t* __restrict__ expert, std::int32_t* __restrict__ chunk_counts,
                                   unsigned copies, unsigned experts) {
  __shared__ std::int32_t count[kMaxExperts];
  for (unsigned e = threadIdx.x; e < experts; e += blockDim.x) count[e] = 0;
  __syncthreads();
  const unsigned p0 = blockIdx.x * kChunk, p_end = min(copies, p0 + kChunk);
  for (unsigned p = p0 + threadIdx.x; p < p_end; p += blockDim.x) atomicAdd(&count[expert[p]], 1);
  __syncthreads();
  for (unsigned e = threadIdx.x; e < experts; e += blockDim.x) chunk_counts[blockIdx.x * experts + e] = count[e];
}

// One block: per expert, prefix over chunks (chunk_counts becomes the chunk's base within the expert), totals,
// then an exclusive scan over experts.
__global__ void scan_kernel(std::int32_t* __restrict__ chunk_counts, std::int32_t* __restrict__ counts,
                            std::int32_t* __restrict__ offsets, unsigned chunks, unsigned experts) {
  for (unsigned e = threadIdx.x; e < experts; e += blockDim.x) {
    std::int32_t running = 0;
    for (unsigned c = 0; c < chunks; ++c) {
      const std::int32_t n = chunk_counts[c * experts + e];
      chunk_counts[c * experts + e] = running;
      running += n;
    }
    counts[e] = running;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    std::int32_t running = 0;
    for (unsigned e = 0; e < experts; ++e) {
      offsets[e] = running;
      running += counts[e];
    }
  }
}

__global__ void assign_kernel(const std::int32_t* __restrict__ expert, const std::int32_t* __restrict__ chunk_base,
                              const std::int32_t* __restrict__ offsets, std::int32_t* __restrict__ position,
                              std::int32_t* __restrict__ source_token, unsigned copies, unsigned experts,
                              unsigned top_k) {
  __shared__ std::int32_t next[kMaxExperts];
  for (unsigned e = threadIdx.x; e < experts; e += 32) next[e] = offsets[e] + chunk_base[blockIdx.x * experts + e];
  __syncwarp();
  const unsigned lane = threadIdx.x;
  const unsigned p0 = blockIdx.x * kChunk, p_end = min(copies, p0 + kChunk);
  for (unsigned base = p0; base < p_end; base += 32) {
    const unsigned p = base + lane;
    const bool active = p < p_end;
    const int e = active ? expert[p] : -1 - static_cast<int>(lane);  // inactive lanes match nobody
    const unsigned peers = __match_any_sync(0xffffffffu, e);
    if (active) {
      const unsigned rank = __popc(peers & ((1u << lane) - 1u));
      const std::int32_t dest = next[e] + static_cast<std::int32_t>(rank);
      position[p] = dest;
      source_token[dest] = static_cast<std::int32_t>(p / top_k);
    }
    __syncwarp();
    if (active && lane == static_cast<unsigned>(__ffs(peers) - 1)) next[e] += __popc(peers);
    __syncwarp();
  }
}

__global__ void permute_rows_vec8(const uint4* __restrict__ x, const std::int32_t* __restrict__ position,
                                  uint4* __restrict__ out, unsigned top_k, std::size_t width8) {
  const std::size_t p = blockIdx.x;
  const uint4* src = x + (p / top_k) * width8;
  uint4* dst = out + static_cast<std::size_t>(position[p]) * width8;
  for (std::size_t c = threadIdx.x; c < width8; c += blockDim.x) dst[c] = src[c];
}

__global__ void permute_rows_scalar(const __nv_bfloat16* __restrict__ x, const std::int32_t* __restrict__ position,
                                    __nv_bfloat16* __restrict__ out, unsigned top_k, std::size_t width) {
  const std::size_t p = blockIdx.x;
  const __nv_bfloat16* src = x + (p / top_k) * width;
  __nv_bfloat16* dst = out + static_cast<std::size_t>(position[p]) * width;
  for (std::size_t c = threadIdx.x; c < width; c += blockDim.x) dst[c] = src[c];
}

__global__ void unpermute_kernel(const __nv_bfloat16* __restrict__ y, const std::int32_t* __restrict__ position,
                                 const float* __restrict__ gate, __nv_bfloat16* __restrict__ out, unsigned top_k,
                                 std::size_t width) {
  const std::size_t t = blockIdx.x;
  for (std::size_t c = threadIdx.x; c < width; c += blockDim.x) {
    float acc = 0;
    for (unsigned s = 0; s < top_k; ++s) {
      const std::size_t row = static_cast<std::size_t>(position[t * top_k + s]);
      acc += gate[t * top_k + s] * __bfloat162float(y[row * width + c]);
    }
    out[t * width + c] = __float2bfloat16_rn(acc);
  }
}

std::size_t chunks_for(std::size_t copies) { return (copies + kChunk - 1) / kChunk; }

}  // namespace

DispatchScratch::DispatchScratch(std::size_t copies, std::size_t experts)
    : chunk_counts(std::max<std::size_t>(1, chunks_for(copies)) * experts) {}

void launch_dispatch_layout(const std::int32_t* expert, std::int32_t* counts, std::int32_t* offsets,
                            std::int32_t* position, std::int32_t* source_token, std::size_t tokens, std::size_t top_k,
                            std::size_t experts, DispatchScratch& scratch, cudaStream_t stream) {
  K3SIM_ASSERT(experts <= kMaxExperts, "launch_dispatch_layout: at most 1024 experts");
  const std::size_t copies = tokens * top_k;
  const auto chunks = static_cast<unsigned>(chunks_for(copies));
  K3SIM_ASSERT(scratch.chunk_counts.size() >= std::size_t{chunks} * experts, "launch_dispatch_layout: scratch too small");
  const auto c = static_cast<unsigned>(copies), e = static_cast<unsigned>(experts);
  if (chunks > 0) chunk_count_kernel<<<chunks, 256, 0, stream>>>(expert, scratch.chunk_counts.get(), c, e);
  else K3_CUDA(cudaMemsetAsync(scratch.chunk_counts.get(), 0, experts * sizeof(std::int32_t), stream));
  scan_kernel<<<1, 1024, 0, stream>>>(scratch.chunk_counts.get(), counts, offsets, chunks, e);
  if (chunks > 0) {
    assign_kernel<<<chunks, 32, 0, stream>>>(expert, scratch.chunk_counts.get(), offsets, position, source_token, c, e,
                                             static_cast<unsigned>(top_k));
  }
  K3_CUDA(cudaGetLastError());
}

void launch_permute_rows(const __nv_bfloat16* x, const std::int32_t* position, __nv_bfloat16* out, std::size_t tokens,
                         std::size_t top_k, std::size_t width, cudaStream_t stream) {
  const auto copies = static_cast<unsigned>(tokens * top_k);
  if (copies == 0) return;
  if (width % 8 == 0) {
    permute_rows_vec8<<<copies, 128, 0, stream>>>(reinterpret_cast<const uint4*>(x), position,
                                                  reinterpret_cast<uint4*>(out), static_cast<unsigned>(top_k), width / 8);
  } else {
    permute_rows_scalar<<<copies, 128, 0, stream>>>(x, position, out, static_cast<unsigned>(top_k), width);
  }
  K3_CUDA(cudaGetLastError());
}

void launch_unpermute(const __nv_bfloat16* y, const std::int32_t* position, const float* gate, __nv_bfloat16* out,
                      std::size_t tokens, std::size_t top_k, std::size_t width, cudaStream_t stream) {
  if (tokens == 0) return;
  unpermute_kernel<<<static_cast<unsigned>(tokens), 256, 0, stream>>>(y, position, gate, out,
                                                                      static_cast<unsigned>(top_k), width);
  K3_CUDA(cudaGetLastError());
}

DispatchLayout gpu::dispatch_layout(std::span<const std::int32_t> expert, std::size_t tokens, std::size_t top_k,
                                    std::size_t experts) {
  DeviceBuffer<std::int32_t> de(expert), counts(experts), offsets(experts), position(tokens * top_k),
      source(tokens * top_k);
  DispatchScratch scratch(tokens * top_k, experts);
  launch_dispatch_layout(de.get(), counts.get(), offsets.get(), position.get(), source.get(), tokens, top_k, experts,
                         scratch, nullptr);
  K3_CUDA(cudaDeviceSynchronize());
  return DispatchLayout{counts.download(), offsets.download(), position.download(), source.download()};
}

std::vector<Bf16> gpu::permute(std::span<const Bf16> x, std::span<const std::int32_t> expert, std::size_t tokens,
                               std::size_t top_k, std::size_t experts, std::size_t width) {
  const auto layout = dispatch_layout(expert, tokens, top_k, experts);
  DeviceBuffer<Bf16> dx(x), out(tokens * top_k * width);
  DeviceBuffer<std::int32_t> pos{std::span<const std::int32_t>(layout.position)};
  launch_permute_rows(as_bf16(dx.get()), pos.get(), as_bf16(out.get()), tokens, top_k, width, nullptr);
  K3_CUDA(cudaDeviceSynchronize());
  return out.download();
}

std::vector<float> gpu::unpermute(std::span<const Bf16> y, std::span<const std::int32_t> position,
                                  std::span<const float> gate, std::size_t tokens, std::size_t top_k,
                                  std::size_t width) {
  DeviceBuffer<Bf16> dy(y), out(tokens * width);
  DeviceBuffer<std::int32_t> dp(position);
  DeviceBuffer<float> dg(gate);
  launch_unpermute(as_bf16(dy.get()), dp.get(), dg.get(), as_bf16(out.get()), tokens, top_k, width, nullptr);
  K3_CUDA(cudaDeviceSynchronize());
  return download_bf16_as_float(out);
}

}  // namespace k3::kernels
