#pragma once
// MoE router: sigmoid scores, top-k on score + bias, gates = score / sum of the chosen scores (bias
// excluded), optionally limited to `max_nodes` node groups per token (DeepSeek-V3 style: a node's score is
// the sum of its two best biased scores; the best `max_nodes` nodes are kept, ties to the lower index).
// Also returns each token's QB cutoff: the (k+1)-th biased score among the allowed experts.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/common/tolerance.hpp"

namespace k3::kernels {

struct RouterShape {
  std::size_t experts = 896;
  std::size_t top_k = 16;
  std::size_t nodes = 1;      // expert groups (experts / nodes per group, contiguous)
  std::size_t max_nodes = 0;  // 0: no node limit
};

struct RouterOutput {
  std::vector<std::int32_t> expert;  // [tokens, top_k], by descending biased score (ties: lower index)
  std::vector<float> gate;           // [tokens, top_k]
  std::vector<float> cutoff;         // [tokens]: (k+1)-th biased score (-inf when fewer experts allowed)
};

// `logits` [tokens, experts] (FP32 router GEMM output), `bias` [experts].
RouterOutput route_ref(std::span<const float> logits, std::span<const float> bias, std::size_t tokens,
                       const RouterShape& shape);

// Gates are float ratios of float sigmoids: a few ulps.
inline constexpr Tolerance kRouterGateTolerance{1e-6, 1e-5};

// Read FP32 logits, write indices and gates.
inline double router_bytes(std::size_t tokens, const RouterShape& s) {
  return static_cast<double>(tokens) * (4.0 * static_cast<double>(s.experts) + 8.0 * static_cast<double>(s.top_k));
}

}  // namespace k3::kernels
