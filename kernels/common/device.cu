#include "kernels/common/device.cuh"
#include "kernels/gpu/gpu_ops.hpp"

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
