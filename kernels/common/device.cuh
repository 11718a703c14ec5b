#pragma once
// CUDA helpers shared by the kernels (kernels/ only: nothing else includes CUDA headers).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace k3::kernels {

void cuda_check(cudaError_t status, const char* what, const char* file, int line);
#define K3_CUDA(call) ::k3::kernels::cuda_check((call), #call, __FILE__, __LINE__)

// Owns a device allocation of n elements.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) : n_(n) {
    if (n > 0) K3_CUDA(cudaMalloc(reinterpret_cast<void**>(&ptr_), n * sizeof(T)));
  }
  explicit DeviceBuffer(std::span<const T> host) : DeviceBuffer(host.size()) { upload(host); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), n_(o.n_) { o.ptr_ = nullptr; o.n_ = 0; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(n_, o.n_);
    return *this;
  }
  ~DeviceBuffer() { if (ptr_) cudaFree(ptr_); }
  T* get() const { return ptr_; }
  std::size_t size() const { return n_; }
  void upload(std::span<const T> host) {
    K3SIM_ASSERT(host.size() == n_, "DeviceBuffer::upload: size mismatch");
    if (n_ > 0) K3_CUDA(cudaMemcpy(ptr_, host.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> host(n_);
    if (n_ > 0) K3_CUDA(cudaMemcpy(host.data(), ptr_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }

 private:
  T* ptr_ = nullptr;
  std::size_t n_ = 0;
};

// Host BF16 (uint16 bits) and device __nv_bfloat16 have the same layout.
inline const __nv_bfloat16* as_bf16(const std::uint16_t* p) { return reinterpret_cast<const __nv_bfloat16*>(p); }
inline __nv_bfloat16* as_bf16(std::uint16_t* p) { return reinterpret_cast<__nv_bfloat16*>(p); }

// Converts a device BF16 array to host floats.
std::vector<float> download_bf16_as_float(const DeviceBuffer<std::uint16_t>& buf);

// Fills a device array with values uniform in [lo, hi) from a counter-based hash of (seed, index). Timing
// inputs of gigabytes (KDA at 128K tokens, the lm_head weight) are made on the device in milliseconds instead
// of on one host core in seconds; validation inputs stay the host's random_float / random_bf16.
void launch_fill_uniform(float* out, std::size_t n, std::uint64_t seed, float lo, float hi, cudaStream_t stream);
void launch_fill_uniform(__nv_bfloat16* out, std::size_t n, std::uint64_t seed, float lo, float hi,
                         cudaStream_t stream);

inline unsigned blocks_for(std::size_t n, unsigned threads) {
  const std::size_t b = (n + threads - 1) / threads;
  return static_cast<unsigned>(b < 65535u * 16u ? (b == 0 ? 1 : b) : 65535u * 16u);
}

}  // namespace k3::kernels
