#pragma once
// Expert selection: top-k of score + bias, gates = the chosen scores renormalised without the bias (the K3
// and DeepSeek-V3 sigmoid router). The (k+1)-th biased score of each token is kept as its cutoff alpha_i,
// which Quantile Balancing reads. Node-limited routing (DeepSeek-V3): at most M nodes per token, nodes
// ranked by the sum of their best ceil(k/M) biased scores.
#include <cstdint>
#include <span>
#include <vector>

#include "model/routing/synthetic_router.hpp"

namespace k3::routing {

struct RoutedBatch {
  int tokens = 0;
  int top_k = 0;
  std::vector<std::int32_t> experts;  // tokens x k, by descending biased score
  std::vector<float> gates;           // tokens x k, sum to 1 per token
  std::vector<float> cutoff;          // alpha_i per token; -infinity when every allowed expert is chosen

  std::int32_t expert(int token, int slot) const { return experts[static_cast<std::size_t>(token) * top_k + slot]; }
};

// Plain top-k of scores + bias over all experts (a partial selection, never a full sort).
void route_topk(const ScoreMatrix& scores, std::span<const float> bias, int top_k, RoutedBatch& out);

// Which node each expert lives on (its primary copy), for node-limited routing.
struct NodeLimit {
  int max_nodes = 0;                  // M
  std::vector<int> node_of_expert;    // size n, values in [0, nodes)
  int nodes = 0;
};

// Throws InputError when M > nodes, M < 1, or the M largest nodes hold fewer than k experts.
void validate(const NodeLimit& limit, int top_k, const char* source);

void route_node_limited(const ScoreMatrix& scores, std::span<const float> bias, int top_k, const NodeLimit& limit,
                        RoutedBatch& out);

// Tokens routed to each expert (size n), accumulated into `load`.
void accumulate_expert_load(const RoutedBatch& batch, std::span<double> load);

}  // namespace k3::routing
