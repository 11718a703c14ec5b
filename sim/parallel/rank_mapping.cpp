#include "sim/parallel/rank_mapping.hpp"

#include <set>

#include "core/error.hpp"

namespace k3::parallel {

namespace {
using core::InputError;
}

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
  if (l.dp % l.ep != 0) {
    throw InputError({source, "parallel.ep", 0},
                     "EP " + std::to_string(l.ep) + " must divide DP = " + std::to_string(l.dp),
                     "a divisor of DP (EP groups are carved out of the data-parallel ranks)");
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

std::vector<GpuIndex> RankMapping::ep_group(GpuIndex gpu) const {
  const auto& l = layout_;
  auto c = coord_of(gpu);
  std::vector<GpuIndex> out;
  out.reserve(static_cast<std::size_t>(l.ep));
  const int groups = expert_dp(l);
  if (l.ep_spread) {
    const int first = c.dp % groups;
    for (int i = 0; i < l.ep; ++i) {
      c.dp = first + i * groups;
      out.push_back(gpu_of(c));
    }
  } else {
    const int first = (c.dp / l.ep) * l.ep;
    for (int i = 0; i < l.ep; ++i) {
      c.dp = first + i;
      out.push_back(gpu_of(c));
    }
  }
  return out;
}

std::vector<GpuIndex> RankMapping::dp_group(GpuIndex gpu) const {
  auto c = coord_of(gpu);
  std::vector<GpuIndex> out;
  for (int d = 0; d < layout_.dp; ++d) {
    c.dp = d;
    out.push_back(gpu_of(c));
  }
  return out;
}

std::vector<GpuIndex> RankMapping::expert_dp_group(GpuIndex gpu) const {
  const auto& l = layout_;
  auto c = coord_of(gpu);
  const int groups = expert_dp(l);
  std::vector<GpuIndex> out;
  if (l.ep_spread) {
    const int base = (c.dp / groups) * groups;
    for (int i = 0; i < groups; ++i) {
      c.dp = base + i;
      out.push_back(gpu_of(c));
    }
  } else {
    const int offset = c.dp % l.ep;
    for (int i = 0; i < groups; ++i) {
      c.dp = offset + i * l.ep;
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

GpuIndex RankMapping::pipeline_peer(GpuIndex gpu, int pp) const {
  auto c = coord_of(gpu);
  c.pp = pp;
  return gpu_of(c);
}

int RankMapping::nodes_spanned(const std::vector<GpuIndex>& gpus) const {
  std::set<GpuIndex> nodes;
  for (auto g : gpus) nodes.insert(g / static_cast<GpuIndex>(gpus_per_node_));
  return static_cast<int>(nodes.size());
}

}  // namespace k3::parallel
