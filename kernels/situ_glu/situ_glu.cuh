#pragma once
#include "kernels/common/device.cuh"

namespace k3::kernels {
// gate_up [tokens, 2 * width] -> out [tokens, width], BF16; see situ_glu_ref.hpp.
void launch_situ_glu(const __nv_bfloat16* gate_up, __nv_bfloat16* out, std::size_t tokens, std::size_t width,
                     cudaStream_t stream);
}  // namespace k3::kernels
