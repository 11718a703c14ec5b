#include "results/traffic_output.hpp"

#include <algorithm>

#include "model/balancing/load_stats.hpp"

namespace k3::results {

nlohmann::json link_bytes_json(const routing::LinkClassBytes& b) {
  return {{"nvlink", b.nvlink}, {"nic", b.nic}, {"fabric", b.fabric}, {"local", b.local}};
}

nlohmann::json traffic_to_json(const routing::UniformTrafficConfig& cfg, const routing::TrafficResult& r, bool matrix) {
  const auto per_token = r.bytes_per_token();
  const std::vector<double> gpu_bytes = r.gpu_bytes;
  double mean = 0, max = 0;
  for (double b : gpu_bytes) {
    mean += b;
    max = std::max(max, b);
  }
  mean /= static_cast<double>(gpu_bytes.size());
  nlohmann::json j = {
      {"model", cfg.shape.name},
      {"experts", cfg.shape.experts},
      {"top_k", cfg.shape.top_k},
      {"width_elements", cfg.shape.dispatch_width},
      {"ep", cfg.placement.gpus},
      {"gpus_per_node", cfg.placement.gpus_per_node},
      {"algorithm", routing::to_string(cfg.traffic.algorithm)},
      {"node_limit", cfg.node_limit == 0 ? nlohmann::json(nullptr) : nlohmann::json(cfg.node_limit)},
      {"tokens", r.tokens},
      {"routing", "uniform"},
      {"elements_per_token", r.elements_per_token()},
      {"dispatch_bytes_per_element", cfg.traffic.dispatch_bytes_per_element},
      {"combine_bytes_per_element", cfg.traffic.combine_bytes_per_element},
      {"bytes_per_token", link_bytes_json(per_token)},
      {"dispatch_bytes_per_token", link_bytes_json(r.dispatch.scaled(1.0 / r.tokens))},
      {"combine_bytes_per_token", link_bytes_json(r.combine.scaled(1.0 / r.tokens))},
      {"dedup_factor", {{"gpu", r.gpu_dedup_factor()}, {"node", r.node_dedup_factor()}}},
      {"distinct_gpus_per_token", r.distinct_gpus_per_token()},
      {"distinct_nodes_per_token", r.distinct_nodes_per_token()},
      {"closed_form_gpus_per_token",
       routing::expected_distinct_groups(cfg.shape.experts, cfg.shape.top_k, cfg.placement.gpus)},
      {"closed_form_nodes_per_token",
       routing::expected_distinct_groups(cfg.shape.experts, cfg.shape.top_k,
                                         cfg.placement.gpus / cfg.placement.gpus_per_node)},
      {"gpu_bytes", {{"max", max}, {"mean", mean}}},
      {"max_over_mean_gpu_bytes", balancing::max_over_mean(gpu_bytes)},
  };
  if (matrix) {
    j["dispatch_matrix_bytes"] = r.dispatch_matrix;
    j["combine_matrix_bytes"] = r.combine_matrix;
  }
  return j;
}

}  // namespace k3::results
