#include "kernels/gpu/gpu_ops.hpp"
#include "kernels/probes/probes.cuh"

namespace k3::kernels {

namespace {
__global__ void copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    dst[i] = src[i];
  }
}

std::size_t l2_bytes() {
  int bytes = 0;
  K3_CUDA(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, 0));
  return static_cast<std::size_t>(bytes);
}
}  // namespace

void launch_copy(const void* src, void* dst, std::size_t bytes, cudaStream_t stream) {
  K3SIM_ASSERT(bytes % 16 == 0, "launch_copy: bytes must be a multiple of 16");
  int sms = 0;
  K3_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const std::size_t n = bytes / 16;
  const unsigned blocks = std::min(blocks_for(n, 512), static_cast<unsigned>(sms) * 8u);
  copy_kernel<<<blocks, 512, 0, stream>>>(static_cast<const uint4*>(src), static_cast<uint4*>(dst), n);
  K3_CUDA(cudaGetLastError());
}

L2Flusher::L2Flusher() : buffer_(std::max<std::size_t>(2 * l2_bytes(), 1 << 20)) {}

void L2Flusher::flush(cudaStream_t stream) { K3_CUDA(cudaMemsetAsync(buffer_.get(), 0, buffer_.size(), stream)); }

double gpu::hbm_copy_bytes_per_s(std::size_t bytes) {
  DeviceBuffer<unsigned char> src(bytes), dst(bytes);
  K3_CUDA(cudaMemset(src.get(), 1, bytes));
  L2Flusher l2;
  const auto samples = time_with_events([&] { launch_copy(src.get(), dst.get(), bytes, nullptr); }, l2, 2, 5, nullptr);
  double best = samples.front();
  for (double s : samples) best = std::min(best, s);
  return 2.0 * static_cast<double>(bytes) / best;
}

}  // namespace k3::kernels
