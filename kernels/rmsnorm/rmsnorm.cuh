#pragma once
#include "kernels/common/device.cuh"

namespace k3::kernels {
// x [tokens, width], weight [width] -> out [tokens, width], BF16; one block per row.
void launch_rmsnorm(const __nv_bfloat16* x, const __nv_bfloat16* weight, __nv_bfloat16* out, std::size_t tokens,
                    std::size_t width, float eps, cudaStream_t stream);
}  // namespace k3::kernels
