#include "sim/parallel/group_placement.hpp"

#include <algorithm>
#include <functional>
#include <limits>

namespace k3::parallel {

namespace {

using GroupOf = std::function<std::vector<GpuIndex>(GpuIndex)>;

// Visits each distinct group of stage 0 once (every stage is laid out alike, so its groups stand for all
// stages'); the PP group of a stage-0 GPU runs through every stage.
GroupPlacement measure(const RankMapping& map, std::string name, const GroupOf& group_of) {
  const auto stage = stage_ranks(map.layout());
  std::vector<char> seen(static_cast<std::size_t>(stage), 0);
  GroupPlacement p;
  p.group = std::move(name);
  p.min_domains = std::numeric_limits<int>::max();
  p.max_domains = 0;
  for (std::int64_t g = 0; g < stage; ++g) {
    if (seen[static_cast<std::size_t>(g)] != 0) continue;
    const auto members = group_of(static_cast<GpuIndex>(g));
    for (auto m : members) {
      const auto local = static_cast<std::int64_t>(m) % stage;
      seen[static_cast<std::size_t>(local)] = 1;
    }
    p.size = static_cast<int>(members.size());
    const int domains = map.nodes_spanned(members);
    p.min_domains = std::min(p.min_domains, domains);
    p.max_domains = std::max(p.max_domains, domains);
  }
  return p;
}

}  // namespace

std::vector<GroupPlacement> group_placement(const RankMapping& map) {
  const auto& l = map.layout();
  std::vector<GroupPlacement> out;
  auto add = [&](int size, std::string name, const GroupOf& group_of) {
    if (size > 1) out.push_back(measure(map, std::move(name), group_of));
  };
  add(l.tp, "TP", [&](GpuIndex g) { return map.tp_group(g); });
  add(l.cp, "CP", [&](GpuIndex g) { return map.cp_group(g); });
  add(l.dp * l.cp, "DP x CP", [&](GpuIndex g) { return map.dp_group(g); });
  add(l.ep, "EP", [&](GpuIndex g) { return map.ep_group(g); });
  add(l.etp, "ETP", [&](GpuIndex g) { return map.etp_group(g); });
  add(expert_dp(l), "EDP", [&](GpuIndex g) { return map.expert_dp_group(g); });
  add(l.pp, "PP", [&](GpuIndex g) {
    std::vector<GpuIndex> peers;
    for (int p = 0; p < l.pp; ++p) peers.push_back(map.pipeline_peer(g, p));
    return peers;
  });
  return out;
}

}  // namespace k3::parallel
