#pragma once
#include "kernels/common/device.cuh"

namespace k3::kernels {
// BF16 q, k, v; FP32 out. Prefill: [T, H, dqk] / [T, H, dv], causal. Decode: q [H, dk], cache [L, dk]
// (values = first dv dims). dv <= 512.
void launch_mla_prefill(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, float* o,
                        std::size_t tokens, std::size_t heads, std::size_t dqk, std::size_t dv, cudaStream_t stream);
void launch_mla_decode(const __nv_bfloat16* q, const __nv_bfloat16* cache, float* o, std::size_t heads,
                       std::size_t cache_len, std::size_t dk, std::size_t dv, float scale, cudaStream_t stream);
}  // namespace k3::kernels
