#pragma once
// The all-to-all traffic a routed batch causes under an expert placement.
//
// A token is sent once per destination GPU however many of its k experts live there (the GPU combines its
// local experts' outputs before replying: one combine copy per GPU too).
//   flat (NCCL all-to-all): source GPU -> each destination GPU directly.
//   hierarchical (DeepSeek-V3 / DeepEP): once per destination node over the NIC, to the GPU with the source's
//     local index in that node (same rail), then over NVLink to each destination GPU of that node; combine
//     is the reverse, reduced on the relay so the NIC carries one copy per node.
// Link classes: nvlink (GPU to GPU in a node), nic (leaving a node through a NIC), fabric (the part of the NIC
// bytes that changes rail, i.e. crosses the spine of a rail-optimised fabric), local (the source GPU hosts
// the expert: no link).
// Element sizes: dispatch in FP8 with one fp32 scale per 128 elements (DeepSeek-V3, arXiv:2412.19437 sec.
// 3.3: 1 + 4/128 B per element), combine in BF16 (2 B).
#include <span>
#include <string>
#include <vector>

#include "model/routing/placement.hpp"
#include "model/routing/topk_selection.hpp"
#include "core/units.hpp"

namespace k3::routing {

enum class DispatchAlgorithm { flat, hierarchical };
DispatchAlgorithm parse_dispatch_algorithm(const std::string& text, const char* flag);  // "flat" | "deepep"
const char* to_string(DispatchAlgorithm a);

struct TrafficSpec {
  DispatchAlgorithm algorithm = DispatchAlgorithm::flat;
  int width = 0;                                       // elements per token copy
  double dispatch_bytes_per_element = 1.0 + 4.0 / 128;  // FP8 + per-128 fp32 scale (DeepSeek-V3)
  double combine_bytes_per_element = 2.0;              // BF16
};

struct LinkClassBytes {
  core::Bytes nvlink = 0, nic = 0, fabric = 0, local = 0;
  LinkClassBytes& operator+=(const LinkClassBytes& o);
  LinkClassBytes scaled(double f) const { return {nvlink * f, nic * f, fabric * f, local * f}; }
};

struct TrafficResult {
  int gpus = 0;
  int gpus_per_node = 0;
  double tokens = 0;
  int top_k = 0;
  int width = 0;
  LinkClassBytes dispatch, combine;       // totals over the batch
  std::vector<double> dispatch_matrix;    // gpus x gpus, row = sending GPU, bytes of every hop
  std::vector<double> combine_matrix;
  std::vector<double> gpu_bytes;          // bytes sent plus received over links, per GPU
  double expert_copies = 0;               // tokens x k (before dedup)
  double gpu_copies = 0;                  // distinct (token, destination GPU) pairs
  double node_copies = 0;                 // distinct (token, destination node) pairs

  double elements_per_token() const { return static_cast<double>(top_k) * width; }
  double distinct_gpus_per_token() const { return gpu_copies / tokens; }
  double distinct_nodes_per_token() const { return node_copies / tokens; }
  double gpu_dedup_factor() const { return expert_copies / gpu_copies; }
  double node_dedup_factor() const { return expert_copies / node_copies; }
  LinkClassBytes bytes_per_token() const;  // dispatch + combine
};

// `per_gpu_batches[g]` = the tokens that start on GPU g of the EP group, routed.
TrafficResult compute_traffic(std::span<const RoutedBatch> per_gpu_batches, const ExpertPlacement& placement,
                              const TrafficSpec& spec);

// Expected distinct groups hit by a uniform k-subset of n items spread evenly over `groups` groups:
// G (1 - C(n - n/G, k) / C(n, k)).
double expected_distinct_groups(int experts, int top_k, int groups);

}  // namespace k3::routing
