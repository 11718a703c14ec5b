#pragma once
#include "kernels/common/device.cuh"

namespace k3::kernels {
// Streams `bytes` (multiple of 16) from src to dst with 16-byte loads: the achievable HBM copy rate.
void launch_copy(const void* src, void* dst, std::size_t bytes, cudaStream_t stream);

// Evicts L2 between timed repetitions by writing a buffer twice the L2 size.
class L2Flusher {
 public:
  L2Flusher();
  void flush(cudaStream_t stream);

 private:
  DeviceBuffer<unsigned char> buffer_;
};

// Times `launch` with CUDA events: `warmup` untimed calls, then `reps` timed ones with L2 flushed before each.
template <class Launch>
std::vector<double> time_with_events(Launch&& launch, L2Flusher& l2, int warmup, int reps, cudaStream_t stream);
}  // namespace k3::kernels

namespace k3::kernels {
template <class Launch>
std::vector<double> time_with_events(Launch&& launch, L2Flusher& l2, int warmup, int reps, cudaStream_t stream) {
  for (int i = 0; i < warmup; ++i) launch();
  cudaEvent_t start, stop;
  K3_CUDA(cudaEventCreate(&start));
  K3_CUDA(cudaEventCreate(&stop));
  std::vector<double> samples;
  for (int i = 0; i < reps; ++i) {
    l2.flush(stream);
    K3_CUDA(cudaEventRecord(start, stream));
    launch();
    K3_CUDA(cudaEventRecord(stop, stream));
    K3_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    K3_CUDA(cudaEventElapsedTime(&ms, start, stop));
    samples.push_back(static_cast<double>(ms) * 1e-3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return samples;
}
}  // namespace k3::kernels
