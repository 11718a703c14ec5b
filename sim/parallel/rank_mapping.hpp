#pragma once
// Where each parallel rank runs. GPUs are numbered node by node (GPU g sits in node g / gpus_per_node);
// ranks are laid out TP fastest, then CP, then DP, then PP (Megatron-LM's order), so TP stays inside a
// node, an EP group (a run of consecutive DP ranks sharing TP and CP indices) spans as few nodes as
// possible, and pipeline stages are whole blocks of nodes.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/parallel/parallel_layout.hpp"

namespace k3::parallel {

using GpuIndex = std::uint32_t;

struct RankCoord {
  int tp = 0;
  int cp = 0;
  int dp = 0;
  int pp = 0;
};

class RankMapping {
 public:
  // Resolves dp (when 0) from the GPU count and checks that the layout tiles the cluster; InputError
  // naming the parallel.* key otherwise. `source` names the scenario file in errors.
  RankMapping(ParallelLayout layout, std::int64_t gpus, int gpus_per_node, const std::string& source);

  const ParallelLayout& layout() const { return layout_; }
  std::int64_t gpus() const { return gpus_; }
  int gpus_per_node() const { return gpus_per_node_; }

  GpuIndex gpu_of(const RankCoord& c) const;
  RankCoord coord_of(GpuIndex gpu) const;

  // The EP group holding `gpu`: ep consecutive DP ranks with the same TP, CP and PP indices. With
  // ep_spread the group's members are strided across the stage's DP ranks instead (spans more nodes).
  std::vector<GpuIndex> ep_group(GpuIndex gpu) const;
  // The DP group of `gpu` (same TP, CP, PP indices): gradients of dense weights are reduced over it.
  std::vector<GpuIndex> dp_group(GpuIndex gpu) const;
  // Expert weights are replicated over dp / ep ranks (expert data parallelism).
  std::vector<GpuIndex> expert_dp_group(GpuIndex gpu) const;
  std::vector<GpuIndex> tp_group(GpuIndex gpu) const;
  // GPU holding pipeline stage `pp` for the same TP, CP and DP indices as `gpu`.
  GpuIndex pipeline_peer(GpuIndex gpu, int pp) const;

  int nodes_spanned(const std::vector<GpuIndex>& gpus) const;

 private:
  ParallelLayout layout_;
  std::int64_t gpus_;
  int gpus_per_node_;
};

}  // namespace k3::parallel
