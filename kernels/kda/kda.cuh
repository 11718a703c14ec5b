#pragma once
#include "kernels/common/device.cuh"

namespace k3::kernels {
// KDA over `tokens` steps from state [H, d, d] (FP32, updated); q, k, a [T, H, d], v [T, H, d], beta [T, H],
// o [T, H, d]. One block per head, state in shared memory (64 KiB at d = 128). tokens = 1 is the decode step.
void launch_kda_recurrent(const float* q, const float* k, const float* v, const float* a, const float* beta,
                          float* state, float* o, std::size_t tokens, std::size_t heads, std::size_t d,
                          cudaStream_t stream);
}  // namespace k3::kernels
