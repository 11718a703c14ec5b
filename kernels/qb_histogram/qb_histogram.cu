// QB histogram: blocks own 8 experts and a slice of tokens, count into a shared-memory histogram
// (8 x bins) and flush it with one atomic per non-empty bin. Bin arithmetic uses explicitly rounded float
// operations (no FMA contraction) so that every value lands in the same bin as in qb_ref.
#include "kernels/gpu/gpu_ops.hpp"
#include "kernels/qb_histogram/qb_histogram.cuh"

namespace k3::kernels {

namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kExpertsPerBlock = 8;
constexpr unsigned kTokensPerBlock = 512;

__device__ __forceinline__ unsigned bin_of(float r, float lo, float inv_width, unsigned bins) {
  const float x = __fmul_rn(__fsub_rn(r, lo), inv_width);
  if (!(x > 0.0f)) return 0;
  const float b = floorf(x);
  return b >= static_cast<float>(bins) ? bins - 1 : static_cast<unsigned>(b);
}

__global__ void qb_histogram_kernel(const float* __restrict__ scores, const float* __restrict__ cutoff,
                                    std::uint32_t* __restrict__ counts, unsigned tokens, unsigned experts,
                                    unsigned bins, float lo, float inv_width) {
  extern __shared__ std::uint32_t hist[];  // [kExpertsPerBlock, bins]
  const unsigned e0 = blockIdx.x * kExpertsPerBlock;
  const unsigned t0 = blockIdx.y * kTokensPerBlock;
  for (unsigned i = threadIdx.x; i < kExpertsPerBlock * bins; i += kThreads) hist[i] = 0;
  __syncthreads();
  const unsigned t_end = min(tokens, t0 + kTokensPerBlock);
  for (unsigned i = threadIdx.x; i < (t_end - t0) * kExpertsPerBlock; i += kThreads) {
    const unsigned t = t0 + i / kExpertsPerBlock, e = e0 + i % kExpertsPerBlock;
    if (e < experts) {
      const float r = __fsub_rn(cutoff[t], scores[static_cast<std::size_t>(t) * experts + e]);
      atomicAdd(&hist[(e - e0) * bins + bin_of(r, lo, inv_width, bins)], 1u);
    }
  }
  __syncthreads();
  for (unsigned i = threadIdx.x; i < kExpertsPerBlock * bins; i += kThreads) {
    const unsigned e = e0 + i / bins;
    if (e < experts && hist[i] != 0) atomicAdd(&counts[static_cast<std::size_t>(e) * bins + i % bins], hist[i]);
  }
}

__global__ void qb_quantile_kernel(const std::uint32_t* __restrict__ counts, float* __restrict__ quantile,
                                   unsigned experts, unsigned bins, float lo, float hi, double q) {
  const unsigned e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= experts) return;
  const double width = static_cast<double>(hi - lo) / bins;
  double before = 0;
  for (unsigned b = 0; b < bins; ++b) {
    const double c = counts[static_cast<std::size_t>(e) * bins + b];
    if (c > 0 && before + c >= q) {
      quantile[e] = static_cast<float>(static_cast<double>(lo) + width * (b + (q - before) / c));
      return;
    }
    before += c;
  }
  quantile[e] = hi;
}

}  // namespace

void launch_qb_histogram(const float* scores, const float* cutoff, std::uint32_t* counts, std::size_t tokens,
                         const QbHistogramShape& s, cudaStream_t stream) {
  if (tokens == 0) return;
  const std::size_t smem = kExpertsPerBlock * s.bins * sizeof(std::uint32_t);
  K3SIM_ASSERT(smem <= 48 * 1024, "launch_qb_histogram: at most 1536 bins");
  const dim3 grid(static_cast<unsigned>((s.experts + kExpertsPerBlock - 1) / kExpertsPerBlock),
                  static_cast<unsigned>((tokens + kTokensPerBlock - 1) / kTokensPerBlock));
  qb_histogram_kernel<<<grid, kThreads, smem, stream>>>(scores, cutoff, counts, static_cast<unsigned>(tokens),
                                                        static_cast<unsigned>(s.experts), static_cast<unsigned>(s.bins),
                                                        s.lo, s.inv_bin_width());
  K3_CUDA(cudaGetLastError());
}

void launch_qb_quantile(const std::uint32_t* counts, float* quantile, const QbHistogramShape& s, double q,
                        cudaStream_t stream) {
  qb_quantile_kernel<<<blocks_for(s.experts, 128), 128, 0, stream>>>(counts, quantile, static_cast<unsigned>(s.experts),
                                                                     static_cast<unsigned>(s.bins), s.lo, s.hi, q);
  K3_CUDA(cudaGetLastError());
}

std::vector<std::uint32_t> gpu::qb_histogram(std::span<const float> scores, std::span<const float> cutoff,
                                             std::size_t tokens, const QbHistogramShape& shape) {
  DeviceBuffer<float> ds(scores), dc(cutoff);
  DeviceBuffer<std::uint32_t> counts(shape.experts * shape.bins);
  K3_CUDA(cudaMemset(counts.get(), 0, counts.size() * sizeof(std::uint32_t)));
  launch_qb_histogram(ds.get(), dc.get(), counts.get(), tokens, shape, nullptr);
  K3_CUDA(cudaDeviceSynchronize());
  return counts.download();
}

std::vector<float> gpu::qb_quantile(std::span<const std::uint32_t> counts, const QbHistogramShape& shape, double q) {
  DeviceBuffer<std::uint32_t> dc(counts);
  DeviceBuffer<float> out(shape.experts);
  launch_qb_quantile(dc.get(), out.get(), shape, q, nullptr);
  K3_CUDA(cudaDeviceSynchronize());
  return out.download();
}

}  // namespace k3::kernels
