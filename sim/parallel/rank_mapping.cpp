#include "sim/parallel/rank_mapping.hpp"

#include <numeric>
#include <set>

#include "core/error.hpp"

namespace k3::parallel {

namespace {
using core::InputError;
}

const char* to_string(ContextParallelComm c) { return c == ContextParallelComm::p2p ? "p2p" : "a2a"; }

RankMapping::RankMapping(ParallelLayout layout, std::int64_t gpus, int gpus_per_node, const std::string& source)
    : layout_(layout), gpus_(gpus), gpus_per_node_(gpus_per_node) {
  auto& l = layout_;
  const std::int64_t model_parallel = static_cast<std::int64_t>(l.tp) * l.cp * l.pp;
  if (gpus % model_parallel != 0) {
    throw InputError({source, "parallel", 0},
                     "TP x CP x PP = " + std::to_string(model_parallel) + " does not divide the cluster's " +
                         std::to_string(gpus) + " GPUs",
                     "a layout whose TP x CP x PP divides the GPU count");
  }
  const std::int64_t dp = gpus / model_parallel;
  if (l.dp == 0) {
    l.dp = static_cast<int>(dp);
  } else if (l.dp != dp) {
    throw InputError({source, "parallel.dp", 0},
                     "TP x CP x PP x DP = " + std::to_string(model_parallel * l.dp) + " but the cluster has " +
                         std::to_string(gpus) + " GPUs",
                     "dp: auto, or dp = " + std::to_string(dp));
  }
  if (l.tp > gpus_per_node) {
    throw InputError({source, "parallel.tp", 0},
                     "TP " + std::to_string(l.tp) + " spans more than one node of " + std::to_string(gpus_per_node) +
                         " GPUs",
                     "tp <= GPUs per node");
  }
  if (gpus_per_node % l.tp != 0) {
    throw InputError({source, "parallel.tp", 0}, "TP must divide the GPUs per node (" +
                     std::to_string(gpus_per_node) + ")", "a divisor of the GPUs per node");
  }
  const std::int64_t stage = stage_ranks(l);
  const std::int64_t experts_grid = static_cast<std::int64_t>(l.ep) * l.etp;
  if (stage % experts_grid != 0) {
    throw InputError({source, l.etp > 1 ? "parallel.etp" : "parallel.ep", 0},
                     "ETP x EP = " + std::to_string(experts_grid) + " does not divide the " + std::to_string(stage) +
                         " ranks of a pipeline stage (TP x CP x DP)",
                     "ETP x EP dividing TP x CP x DP = " + std::to_string(stage) +
                         " (the MoE layers fold the same ranks as ETP x EP x EDP)");
  }
  if (l.ep_spread && (l.tp > 1 || l.cp > 1 || l.etp > 1)) {
    throw InputError({source, "parallel.ep_spread", 0}, "spreading EP groups over the data-parallel ranks is "
                     "modelled with TP, CP and ETP 1 only", "ep_spread: false, or tp, cp and etp 1");
  }
}

GpuIndex RankMapping::gpu_of(const RankCoord& c) const {
  const auto& l = layout_;
  const std::int64_t idx = ((static_cast<std::int64_t>(c.pp) * l.dp + c.dp) * l.cp + c.cp) * l.tp + c.tp;
  return static_cast<GpuIndex>(idx);
}

RankCoord RankMapping::coord_of(GpuIndex gpu) const {
  const auto& l = layout_;
  RankCoord c;
  std::int64_t g = gpu;
  c.tp = static_cast<int>(g % l.tp);
  g /= l.tp;
  c.cp = static_cast<int>(g % l.cp);
  g /= l.cp;
  c.dp = static_cast<int>(g % l.dp);
  c.pp = static_cast<int>(g / l.dp);
  return c;
}

std::int64_t RankMapping::local_rank(GpuIndex gpu) const { return static_cast<std::int64_t>(gpu) % stage_ranks(layout_); }

RankMapping::ExpertCoord RankMapping::expert_coord(std::int64_t local) const {
  const auto& l = layout_;
  const int edp = expert_dp(l);
  ExpertCoord e;
  e.etp = static_cast<int>(local % l.etp);
  const std::int64_t rest = local / l.etp;
  if (l.ep_spread) {
    e.edp = static_cast<int>(rest % edp);
    e.ep = static_cast<int>(rest / edp);
  } else {
    e.ep = static_cast<int>(rest % l.ep);
    e.edp = static_cast<int>(rest / l.ep);
  }
  return e;
}

std::int64_t RankMapping::local_of(const ExpertCoord& e) const {
  const auto& l = layout_;
  const std::int64_t rest = l.ep_spread ? static_cast<std::int64_t>(e.ep) * expert_dp(l) + e.edp
                                        : static_cast<std::int64_t>(e.edp) * l.ep + e.ep;
  return rest * l.etp + e.etp;
}

std::vector<GpuIndex> RankMapping::expert_group(GpuIndex gpu, int ExpertCoord::*axis, int size) const {
  const auto base = stage_base(coord_of(gpu).pp);
  auto e = expert_coord(local_rank(gpu));
  std::vector<GpuIndex> out;
  out.reserve(static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i) {
    e.*axis = i;
    out.push_back(static_cast<GpuIndex>(base + local_of(e)));
  }
  return out;
}

std::vector<GpuIndex> RankMapping::ep_group(GpuIndex gpu) const { return expert_group(gpu, &ExpertCoord::ep, layout_.ep); }

std::vector<GpuIndex> RankMapping::expert_dp_group(GpuIndex gpu) const {
  return expert_group(gpu, &ExpertCoord::edp, expert_dp(layout_));
}

std::vector<GpuIndex> RankMapping::etp_group(GpuIndex gpu) const { return expert_group(gpu, &ExpertCoord::etp, layout_.etp); }

std::vector<GpuIndex> RankMapping::dp_group(GpuIndex gpu) const {
  auto c = coord_of(gpu);
  std::vector<GpuIndex> out;
  for (int d = 0; d < layout_.dp; ++d) {
    for (int cp = 0; cp < layout_.cp; ++cp) {
      c.dp = d;
      c.cp = cp;
      out.push_back(gpu_of(c));
    }
  }
  return out;
}

std::vector<GpuIndex> RankMapping::tp_group(GpuIndex gpu) const {
  auto c = coord_of(gpu);
  std::vector<GpuIndex> out;
  for (int t = 0; t < layout_.tp; ++t) {
    c.tp = t;
    out.push_back(gpu_of(c));
  }
  return out;
}

std::vector<GpuIndex> RankMapping::cp_group(GpuIndex gpu) const {
  auto c = coord_of(gpu);
  std::vector<GpuIndex> out;
  for (int r = 0; r < layout_.cp; ++r) {
    c.cp = r;
    out.push_back(gpu_of(c));
  }
  return out;
}

GpuIndex RankMapping::pipeline_peer(GpuIndex gpu, int pp) const {
  auto c = coord_of(gpu);
  c.pp = pp;
  return gpu_of(c);
}

std::vector<GpuIndex> RankMapping::simulated_block(int pp) const { return block_of(static_cast<GpuIndex>(stage_base(pp))); }

std::vector<GpuIndex> RankMapping::block_of(GpuIndex gpu) const {
  const auto& l = layout_;
  if (l.ep_spread) return ep_group(gpu);
  const std::int64_t size = std::lcm(static_cast<std::int64_t>(l.tp) * l.cp, static_cast<std::int64_t>(l.ep) * l.etp);
  const auto first = static_cast<GpuIndex>(static_cast<std::int64_t>(gpu) - local_rank(gpu) % size);
  std::vector<GpuIndex> out;
  out.reserve(static_cast<std::size_t>(size));
  for (std::int64_t i = 0; i < size; ++i) out.push_back(static_cast<GpuIndex>(first + i));
  return out;
}

GroupShape RankMapping::ep_shape() const { return layout_.ep_spread ? GroupShape{layout_.ep, 1} : GroupShape{layout_.ep, layout_.etp}; }

int RankMapping::ep_index_in_block(int position) const {
  return layout_.ep_spread ? position : (position / layout_.etp) % layout_.ep;
}

int RankMapping::nodes_spanned(const std::vector<GpuIndex>& gpus) const {
  std::set<GpuIndex> nodes;
  for (auto g : gpus) nodes.insert(g / static_cast<GpuIndex>(gpus_per_node_));
  return static_cast<int>(nodes.size());
}

}  // namespace k3::parallel
