#pragma once
// The all-to-all traffic of `k3sim traffic` as report sections, drawn from the command's JSON (keys such
// as "/models/1/bytes_per_token/nic"), plus the dispatch matrix of one EP group as a heatmap (the matrix
// is in the JSON only with --matrix, so it is passed as plain data).
//
// JSON read: {"models": [{"model", "experts", "top_k", "ep", "gpus_per_node", "bytes_per_token": {"nvlink",
//   "nic", "fabric", "local"}, "dedup_factor": {"gpu", "node"}, "distinct_gpus_per_token",
//   "distinct_nodes_per_token", "max_over_mean_gpu_bytes"}]}
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "reports/report.hpp"

namespace k3::reports {

struct TrafficMatrix {
  std::string model;
  int gpus = 0;            // EP group size; the matrix is gpus x gpus, row = sending GPU
  int gpus_per_node = 0;
  std::vector<double> dispatch_bytes;
};

// Drawn GPU x GPU up to this group size, node x node (summed) above it.
inline constexpr int kMaxHeatmapGpus = 64;

// The dispatch matrix as a heatmap: GPU x GPU up to kMaxHeatmapGpus, node x node above.
Heatmap traffic_heatmap(const TrafficMatrix& matrix);

// Section "traffic": bytes per token per link class per model (grouped bars) and the table; one heatmap
// per matrix given.
void add_traffic_section(Report& report, const nlohmann::json& traffic, const std::vector<TrafficMatrix>& matrices);

// `k3sim traffic --report path`. Throws core::InputError naming --report when the file cannot be written.
void write_traffic_report(const std::string& path, const nlohmann::json& traffic,
                          const std::vector<TrafficMatrix>& matrices, RunInfo info);

}  // namespace k3::reports
