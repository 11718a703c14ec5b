#pragma once
// Where each parallel rank runs. GPUs are numbered node by node (GPU g sits in node g / gpus_per_node);
// ranks are laid out TP fastest, then CP, then DP, then PP (Megatron-LM's order), so TP stays inside a
// node and pipeline stages are whole blocks of nodes. The MoE layers fold the same ranks of a stage as
// ETP fastest, then EP, then EDP (Megatron-Core's parallel folding, arXiv:2504.14960): an EP group is a
// run of consecutive ranks of the stage (stride ETP), so it spans as few nodes as possible and may take in
// several TP groups.
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

// Positions inside a block of GPUs (SimulatedBlock): group g of a partition is the members whose position
// p has p % stride + stride * (p / (stride * size)) == g, i.e. `size` members `stride` apart.
struct GroupShape {
  int size = 1;
  int stride = 1;
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

  // The EP group holding `gpu`: EP ranks of the stage with the same ETP and EDP indices. With ep_spread the
  // group's members are strided across the stage's EDP ranks instead (spans more nodes).
  std::vector<GpuIndex> ep_group(GpuIndex gpu) const;
  // The data-parallel group of the dense weights of `gpu`: same TP and PP indices, every CP and DP index
  // (CP ranks hold the same weights and see other tokens, so Megatron-Core reduces and shards over DP x CP).
  std::vector<GpuIndex> dp_group(GpuIndex gpu) const;
  // Expert weights are replicated over the EDP ranks (same ETP and EP indices).
  std::vector<GpuIndex> expert_dp_group(GpuIndex gpu) const;
  std::vector<GpuIndex> tp_group(GpuIndex gpu) const;
  std::vector<GpuIndex> cp_group(GpuIndex gpu) const;
  std::vector<GpuIndex> etp_group(GpuIndex gpu) const;
  // GPU holding pipeline stage `pp` for the same TP, CP and DP indices as `gpu`.
  GpuIndex pipeline_peer(GpuIndex gpu, int pp) const;

  // The smallest run of consecutive ranks of stage `pp` holding whole TP, CP and EP groups (lcm of TP x CP
  // and ETP x EP ranks; the EP group itself under ep_spread): every block of the stage does the same work,
  // so the step simulates one. Its TP, CP, EP and ETP groups have the shapes below.
  std::vector<GpuIndex> simulated_block(int pp) const;
  // The block of its stage holding `gpu`, its members in the positions simulated_block gives stage pp's first.
  std::vector<GpuIndex> block_of(GpuIndex gpu) const;
  GroupShape tp_shape() const { return {layout_.tp, 1}; }
  GroupShape cp_shape() const { return {layout_.cp, layout_.tp}; }
  GroupShape ep_shape() const;
  GroupShape etp_shape() const { return {layout_.etp, 1}; }
  // The EP index of position p of the simulated block (which expert shard it hosts).
  int ep_index_in_block(int position) const;

  int nodes_spanned(const std::vector<GpuIndex>& gpus) const;

 private:
  std::int64_t stage_base(int pp) const { return static_cast<std::int64_t>(pp) * stage_ranks(layout_); }
  // Stage-local rank (TP fastest, then CP, then DP) of `gpu`, and back.
  std::int64_t local_rank(GpuIndex gpu) const;
  // (etp, ep, edp) of a stage-local rank, in the folded order.
  struct ExpertCoord {
    int etp = 0, ep = 0, edp = 0;
  };
  ExpertCoord expert_coord(std::int64_t local) const;
  std::int64_t local_of(const ExpertCoord& e) const;
  // The GPUs of `gpu`'s stage that differ from it only in one expert coordinate.
  std::vector<GpuIndex> expert_group(GpuIndex gpu, int ExpertCoord::*axis, int size) const;

  ParallelLayout layout_;
  std::int64_t gpus_;
  int gpus_per_node_;
};

}  // namespace k3::parallel
