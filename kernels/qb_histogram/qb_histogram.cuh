#pragma once
#include "kernels/common/device.cuh"
#include "kernels/qb_histogram/qb_ref.hpp"

namespace k3::kernels {
// Adds into counts [experts, bins] (zero it first); scores [tokens, experts], cutoff [tokens].
void launch_qb_histogram(const float* scores, const float* cutoff, std::uint32_t* counts, std::size_t tokens,
                         const QbHistogramShape& shape, cudaStream_t stream);
// quantile [experts] at cumulative count q; one thread per expert.
void launch_qb_quantile(const std::uint32_t* counts, float* quantile, const QbHistogramShape& shape, double q,
                        cudaStream_t stream);
}  // namespace k3::kernels
