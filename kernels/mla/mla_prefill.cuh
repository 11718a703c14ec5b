#pragma once
// MLA prefill, FlashAttention-2 on BF16 tensor cores (mla_prefill.cu; algorithm: mla_tiled_ref.hpp).
#include "kernels/common/device.cuh"

namespace k3::kernels {
// q, k [T, H, dqk], v and gate [T, H, dv] BF16 -> o [T, H, dv] FP32 = sigmoid(gate) * causal attention,
// scale 1 / sqrt(dqk). dqk, dv multiples of 16 up to 256 (K3: 192, 128).
void launch_mla_prefill(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                        const __nv_bfloat16* gate, float* o, std::size_t tokens, std::size_t heads, std::size_t dqk,
                        std::size_t dv, cudaStream_t stream);
}  // namespace k3::kernels
