#include "topologies/cluster_spec.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace k3::topo {

std::string_view to_string(FabricKind k) {
  switch (k) {
    case FabricKind::single_switch: return "single_switch";
    case FabricKind::fat_tree: return "fat_tree";
    case FabricKind::rail_fat_tree: return "rail_fat_tree";
    case FabricKind::multi_plane_fat_tree: return "multi_plane_fat_tree";
    case FabricKind::fat_tree3: return "fat_tree3";
  }
  return "?";
}

std::vector<std::string> fabric_kind_names() {
  return {"single_switch", "fat_tree", "rail_fat_tree", "multi_plane_fat_tree", "fat_tree3"};
}

int tiers_of(FabricKind k) {
  switch (k) {
    case FabricKind::single_switch: return 1;
    case FabricKind::fat_tree3: return 3;
    case FabricKind::fat_tree:
    case FabricKind::rail_fat_tree:
    case FabricKind::multi_plane_fat_tree: return 2;
  }
  return 2;
}

namespace {

int ceil_div(long long a, long long b) { return static_cast<int>((a + b - 1) / b); }
int tier_oversubscription(const FabricSpec& f, std::size_t tier) {
  return tier < f.oversubscription.size() ? f.oversubscription[tier] : 1;
}

}  // namespace

FabricProblem fabric_problem(const ClusterSpec& s) {
  const auto& f = s.fabric;
  const long long endpoints = static_cast<long long>(s.nodes) * s.node.gpus;
  if (f.kind == FabricKind::single_switch) {
    if (endpoints > f.radix) return {"radix", fmt::format("a single {}-port switch cannot hold {} NICs", f.radix, endpoints)};
    return {};
  }
  if (f.radix < 2 || f.radix % 2 != 0) return {"radix", fmt::format("radix {} must be even and >= 2", f.radix)};
  const int half = f.radix / 2;
  const std::size_t tiers = f.kind == FabricKind::fat_tree3 ? 2 : 1;
  if (f.oversubscription.size() > tiers) {
    return {"oversubscription", fmt::format("{} has {} switch tier(s) with uplinks, got {} oversubscription ratios",
                                            to_string(f.kind), tiers, f.oversubscription.size())};
  }
  for (std::size_t t = 0; t < tiers; ++t) {
    const int k = tier_oversubscription(f, t);
    if (k < 1 || half % k != 0) {
      return {"oversubscription",
              fmt::format("oversubscription 1:{} at tier {} must divide the {} downlink ports", k, t + 1, half)};
    }
  }
  // Each spine (or core) has one port per leaf (or pod), so the radix caps how many there can be.
  switch (f.kind) {
    case FabricKind::fat_tree:
      if (ceil_div(endpoints, half) > f.radix) {
        return {"radix", fmt::format("a two-tier fat tree of {}-port switches holds at most {} NICs, not {}", f.radix,
                           f.radix * half, endpoints)};
      }
      break;
    case FabricKind::rail_fat_tree:
      if (static_cast<long long>(s.node.gpus) * ceil_div(s.nodes, half) > f.radix) {
        return {"radix", fmt::format("a rail-optimised two-tier fat tree of {}-port switches holds at most {} nodes of {} GPUs, not {}",
                           f.radix, f.radix / s.node.gpus * half, s.node.gpus, s.nodes)};
      }
      break;
    case FabricKind::multi_plane_fat_tree:
      if (ceil_div(s.nodes, half) > f.radix) {
        return {"radix", fmt::format("each plane, a two-tier fat tree of {}-port switches, holds at most {} nodes, not {}",
                           f.radix, f.radix * half, s.nodes)};
      }
      break;
    case FabricKind::fat_tree3:
      if (ceil_div(ceil_div(endpoints, half), half) > f.radix) {
        return {"radix", fmt::format("a three-tier fat tree of {}-port switches holds at most {} NICs, not {}", f.radix,
                           static_cast<long long>(f.radix) * half * half, endpoints)};
      }
      break;
    case FabricKind::single_switch: break;
  }
  return {};
}

std::string grow_fabric_to_fit(ClusterSpec& s) {
  if (s.fabric.tiers != 0 || tiers_of(s.fabric.kind) != 2) return {};
  const auto two_tier = fabric_problem(s);
  // Only a fabric too small for the cluster grows; a malformed one (odd radix, ratios) stays an error as written.
  if (two_tier.key != "radix" || s.fabric.radix < 2 || s.fabric.radix % 2 != 0) return {};
  const auto kind = s.fabric.kind;
  s.fabric.kind = FabricKind::fat_tree3;
  // Three tiers do not hold it either: leave fat_tree3, so that the error says how far three tiers reach.
  if (!fabric_problem(s).problem.empty()) return {};
  const long long half = s.fabric.radix / 2;
  return fmt::format("fabric grown from {} to fat_tree3 (fabric.tiers auto): {}; three tiers of {}-port switches hold "
                     "up to {} NICs",
                     to_string(kind), two_tier.problem, s.fabric.radix, s.fabric.radix * half * half);
}

namespace {

class ClusterWriter {
 public:
  explicit ClusterWriter(const ClusterSpec& s) : s_(s), b_(s.name, s.gpu) { b_.set_achievable(s.achievable); }

  Topology write() && {
    const int gpn = s_.node.gpus;
    const std::size_t ngpu = static_cast<std::size_t>(s_.nodes) * static_cast<std::size_t>(gpn);
    b_.reserve(2 * ngpu + static_cast<std::size_t>(s_.nodes) + ngpu / 4, 12 * ngpu);
    nics_.reserve(ngpu);
    for (int n = 0; n < s_.nodes; ++n) write_node(n);
    write_fabric();
    return std::move(b_).build();
  }

 private:
  void write_node(int n) {
    const auto& ns = s_.node;
    std::vector<VertexId> gpus;
    for (int i = 0; i < ns.gpus; ++i) gpus.push_back(b_.add_gpu(n));
    if (ns.gpus > 1) {
      const VertexId nvs = b_.add_vertex(VertexKind::nvswitch, n);
      for (VertexId g : gpus) b_.add_duplex(g, nvs, ns.nvlink_bytes_per_s, ns.nvlink_latency_s, LinkClass::nvlink);
    }
    for (VertexId g : gpus) {
      const VertexId nic = b_.add_vertex(VertexKind::nic, n);
      b_.add_duplex(g, nic, ns.pcie_bytes_per_s, ns.pcie_latency_s, LinkClass::pcie);
      nics_.push_back(nic);
    }
  }
  VertexId nic(int node, int rail) const {
    return nics_[static_cast<std::size_t>(node) * static_cast<std::size_t>(s_.node.gpus) + static_cast<std::size_t>(rail)];
  }
  VertexId add_switch(VertexKind k) { return b_.add_vertex(k, -1); }
  void attach(VertexId nic_v, VertexId leaf) {
    b_.add_duplex(nic_v, leaf, s_.node.nic_bytes_per_s, s_.node.nic_latency_s, LinkClass::nic);
  }
  void cable(VertexId lower, VertexId upper, LinkClass c) {
    b_.add_duplex(lower, upper, s_.fabric.link_bytes_per_s, s_.fabric.link_latency_s, c);
  }
  int half() const { return s_.fabric.radix / 2; }
  int uplinks(std::size_t tier) const {
    const auto& os = s_.fabric.oversubscription;
    return half() / (tier < os.size() ? os[tier] : 1);
  }

  // Leaves each taking up to radix/2 NICs from `endpoints`, all wired to `spines` shared spines.
  std::vector<VertexId> leaves_for(const std::vector<VertexId>& endpoints) {
    std::vector<VertexId> leaves;
    for (std::size_t i = 0; i < endpoints.size(); ++i) {
      if (i % static_cast<std::size_t>(half()) == 0) leaves.push_back(add_switch(VertexKind::leaf));
      attach(endpoints[i], leaves.back());
    }
    return leaves;
  }
  void two_tier(const std::vector<VertexId>& leaves) {
    for (int sp = 0; sp < uplinks(0); ++sp) {
      const VertexId spine = add_switch(VertexKind::spine);
      for (VertexId leaf : leaves) cable(leaf, spine, LinkClass::leaf_spine);
    }
  }
  std::vector<VertexId> rail(int r) const {
    std::vector<VertexId> out;
    for (int n = 0; n < s_.nodes; ++n) out.push_back(nic(n, r));
    return out;
  }

  void write_fabric() {
    switch (s_.fabric.kind) {
      case FabricKind::single_switch: {
        const VertexId sw = add_switch(VertexKind::leaf);
        for (VertexId v : nics_) attach(v, sw);
        break;
      }
      case FabricKind::fat_tree: two_tier(leaves_for(nics_)); break;
      case FabricKind::rail_fat_tree: {
        std::vector<VertexId> leaves;
        for (int r = 0; r < s_.node.gpus; ++r) {
          const auto l = leaves_for(rail(r));
          leaves.insert(leaves.end(), l.begin(), l.end());
        }
        two_tier(leaves);
        b_.set_rail_aligned(true);
        break;
      }
      case FabricKind::multi_plane_fat_tree:
        for (int r = 0; r < s_.node.gpus; ++r) two_tier(leaves_for(rail(r)));
        b_.set_rail_aligned(true);
        break;
      case FabricKind::fat_tree3: three_tier(); break;
    }
  }

  // k-ary fat tree: pods of radix/2 leaves and uplinks(0) aggregation switches; aggregation switch j of
  // every pod reaches core group j of uplinks(1) cores.
  void three_tier() {
    const auto leaves = leaves_for(nics_);
    const int aggs_per_pod = uplinks(0), cores_per_group = uplinks(1);
    std::vector<VertexId> cores;
    for (int c = 0; c < aggs_per_pod * cores_per_group; ++c) cores.push_back(add_switch(VertexKind::core));
    for (std::size_t first = 0; first < leaves.size(); first += static_cast<std::size_t>(half())) {
      for (int j = 0; j < aggs_per_pod; ++j) {
        const VertexId agg = add_switch(VertexKind::spine);
        for (std::size_t l = first; l < std::min(leaves.size(), first + static_cast<std::size_t>(half())); ++l) {
          cable(leaves[l], agg, LinkClass::leaf_spine);
        }
        for (int c = 0; c < cores_per_group; ++c) {
          cable(agg, cores[static_cast<std::size_t>(j * cores_per_group + c)], LinkClass::spine_core);
        }
      }
    }
  }

  const ClusterSpec& s_;
  TopologyBuilder b_;
  std::vector<VertexId> nics_;  // node-major
};

}  // namespace

Topology build_cluster(const ClusterSpec& spec) {
  if (spec.nodes < 1 || spec.node.gpus < 1) throw std::invalid_argument("a cluster needs nodes >= 1 and GPUs >= 1");
  if (auto p = fabric_problem(spec); !p.problem.empty()) throw std::invalid_argument(p.problem);
  return ClusterWriter(spec).write();
}

}  // namespace k3::topo
