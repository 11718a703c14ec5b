#include "kernels/common/device.cuh"
#include "kernels/gpu/gpu_ops.hpp"

#include <type_traits>

namespace k3::kernels {

void cuda_check(cudaError_t status, const char* what, const char* file, int line) {
  if (status != cudaSuccess) {
    throw core::InternalError(std::string(file) + ":" + std::to_string(line) + ": " + what + " failed: " +
                              cudaGetErrorString(status));
  }
}

std::vector<float> download_bf16_as_float(const DeviceBuffer<std::uint16_t>& buf) {
  const auto raw = buf.download();
  std::vector<float> out(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) out[i] = from_bf16(raw[i]);
  return out;
}

namespace {

// splitmix64's finaliser: a counter-based generator, so every element is independent of launch geometry.
__device__ inline float uniform_at(std::uint64_t seed, std::size_t i, float lo, float hi) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return lo + (hi - lo) * static_cast<float>(z >> 40) * (1.0f / 16777216.0f);  // 24 random bits
}

template <class T>
__global__ void fill_uniform_kernel(T* out, std::size_t n, std::uint64_t seed, float lo, float hi) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    if constexpr (std::is_same_v<T, float>) out[i] = uniform_at(seed, i, lo, hi);
    else out[i] = __float2bfloat16(uniform_at(seed, i, lo, hi));
  }
}

}  // namespace

void launch_fill_uniform(float* out, std::size_t n, std::uint64_t seed, float lo, float hi, cudaStream_t stream) {
  if (n == 0) return;
  fill_uniform_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(out, n, seed, lo, hi);
  K3_CUDA(cudaGetLastError());
}

void launch_fill_uniform(__nv_bfloat16* out, std::size_t n, std::uint64_t seed, float lo, float hi,
                         cudaStream_t stream) {
  if (n == 0) return;
  fill_uniform_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(out, n, seed, lo, hi);
  K3_CUDA(cudaGetLastError());
}

namespace gpu {

bool available() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky "no device" status
    return false;
  }
  return count > 0;
}

std::string device_name() {
  cudaDeviceProp prop{};
  K3_CUDA(cudaGetDeviceProperties(&prop, 0));
  return prop.name;
}

}  // namespace gpu
}  // namespace k3::kernels
