#pragma once
// ExpertLoad: the input the step simulator takes for routed-expert work. For each MoE layer and each GPU of
// the expert-parallel group, the share of that layer's routed token-copies the GPU's experts process (a
// row sums to 1; a perfectly balanced layer has 1/G everywhere). The step simulator multiplies a layer's
// total routed tokens (tokens x k) by the share to get each GPU's expert GEMM rows, so the slowest GPU sets
// the layer's expert time: time ~ max_over_mean(layer) x the balanced time.
//
// Two sources: uniform (ideal balance), or a balancer state (model/balancing/balancer_state.hpp) mapped onto
// GPUs by the placement.
// JSON form: {"layers": L, "gpus": G, "source": "...", "gpu_share": [[...G values...], ... L rows]}.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace k3::routing {

struct ExpertLoad {
  int layers = 0;
  int gpus = 0;
  std::string source;              // how it was produced, e.g. "uniform" or "qb-hist after 20 steps, seed 1"
  std::vector<double> gpu_share;   // layers x gpus, row-major; each row sums to 1
  double sample_tokens = 0;        // tokens per step the shares were counted from; 0 when exact (uniform)

  double share(int layer, int gpu) const {
    return gpu_share[static_cast<std::size_t>(layer) * static_cast<std::size_t>(gpus) + static_cast<std::size_t>(gpu)];
  }
  // Max over mean of a layer's row (1 = balanced).
  double max_over_mean(int layer) const;
};

ExpertLoad uniform_expert_load(int layers, int gpus);

nlohmann::json to_json(const ExpertLoad& load);
// InputError naming `source` and the key on a malformed document or rows that do not sum to 1.
ExpertLoad expert_load_from_json(const nlohmann::json& doc, const std::string& source);

}  // namespace k3::routing
