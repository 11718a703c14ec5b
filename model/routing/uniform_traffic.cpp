#include "model/routing/uniform_traffic.hpp"

#include <fmt/format.h>

#include <vector>

#include "core/error.hpp"
#include "core/rng.hpp"

namespace k3::routing {

TrafficResult uniform_traffic(const UniformTrafficConfig& cfg) {
  validate(cfg.shape, cfg.shape.name);
  validate(cfg.placement, cfg.shape.experts, "--ep");
  if (cfg.tokens_per_gpu < 1)
    throw core::InputError({"--tokens-per-gpu", "", 0}, fmt::format("{} tokens", cfg.tokens_per_gpu), ">= 1");
  const ExpertPlacement placement(cfg.shape.experts, cfg.placement);
  NodeLimit limit;
  if (cfg.node_limit != 0) {
    limit.max_nodes = cfg.node_limit;
    limit.nodes = placement.nodes();
    limit.node_of_expert = placement.primary_node_of_expert();
    validate(limit, cfg.shape.top_k, "--node-limit");
  }
  const int n = cfg.shape.experts;
  const std::vector<float> no_bias(static_cast<std::size_t>(n), 0.0f);
  std::vector<RoutedBatch> batches(static_cast<std::size_t>(placement.gpus()));
  ScoreMatrix scores(cfg.tokens_per_gpu, n);
  for (int g = 0; g < placement.gpus(); ++g) {
    core::Rng rng(core::Rng::derive(cfg.seed, static_cast<std::uint64_t>(g)));
    float* s = scores.data();
    for (Eigen::Index c = 0; c < scores.size(); ++c) s[c] = static_cast<float>(rng.uniform());
    if (cfg.node_limit != 0)
      route_node_limited(scores, no_bias, cfg.shape.top_k, limit, batches[static_cast<std::size_t>(g)]);
    else
      route_topk(scores, no_bias, cfg.shape.top_k, batches[static_cast<std::size_t>(g)]);
  }
  TrafficSpec spec = cfg.traffic;
  if (spec.width == 0) spec.width = cfg.shape.dispatch_width;
  return compute_traffic(batches, placement, spec);
}

}  // namespace k3::routing
