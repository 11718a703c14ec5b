#pragma once
#include "kernels/common/device.cuh"
#include "kernels/router/router_ref.hpp"

namespace k3::kernels {
// logits [tokens, experts] FP32, bias [experts] -> expert [tokens, k], gate [tokens, k], cutoff [tokens].
// One block per token; experts <= 1024 and nodes <= 64.
void launch_router(const float* logits, const float* bias, std::int32_t* expert, float* gate, float* cutoff,
                   std::size_t tokens, const RouterShape& shape, cudaStream_t stream);
}  // namespace k3::kernels
