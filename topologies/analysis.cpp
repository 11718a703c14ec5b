#include "topologies/analysis.hpp"

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>

#include <algorithm>
#include <cmath>
#include <set>

namespace k3::topo {

namespace {

using FlowTraits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using FlowGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS, boost::no_property,
    boost::property<boost::edge_capacity_t, long long,
                    boost::property<boost::edge_residual_capacity_t, long long,
                                    boost::property<boost::edge_reverse_t, FlowTraits::edge_descriptor>>>>;

int rank(VertexKind k) {
  switch (k) {
    case VertexKind::gpu: return 0;
    case VertexKind::nvswitch:
    case VertexKind::nic: return 1;
    case VertexKind::leaf: return 2;
    case VertexKind::spine: return 3;
    case VertexKind::core: return 4;
  }
  return 0;
}

// Edge filter for the residual graph; filtered_graph needs it default-constructible.
struct HasResidual {
  boost::property_map<FlowGraph, boost::edge_residual_capacity_t>::type residual;
  bool operator()(const FlowGraph::edge_descriptor& e) const { return residual[e] > 0; }
};

}  // namespace

Bisection bisection(const Topology& t) {
  const std::size_t nv = t.vertex_count();
  const std::size_t n = t.gpu_count();
  Bisection out;
  if (n < 2) return out;
  FlowGraph g(nv + 2);
  const auto source = nv, sink = nv + 1;
  auto cap = boost::get(boost::edge_capacity, g);
  auto rev = boost::get(boost::edge_reverse, g);
  auto res = boost::get(boost::edge_residual_capacity, g);
  long long total = 1;
  const auto add = [&](std::size_t u, std::size_t v, long long c) {
    const auto e = boost::add_edge(u, v, g).first;
    const auto r = boost::add_edge(v, u, g).first;
    cap[e] = c;
    cap[r] = 0;
    rev[e] = r;
    rev[r] = e;
  };
  // Capacities in kB/s: the source and sink edges carry the sum of every link, which in bytes/s overflows a
  // long long inside the max-flow on fabrics of ~10,000 GPUs (UBSan found it at 9,216).
  constexpr double kUnit = 1e3;
  for (const auto& l : t.links()) {
    const auto c = std::llround(l.capacity_bytes_per_s / kUnit);
    total += c;
    add(l.from, l.to, c);
  }
  // Source and sink edges never bind: the cut always lies on real links.
  for (GpuId gid = 0; gid < n; ++gid) {
    if (gid < n / 2) {
      add(source, t.gpu_vertex(gid), total);
    } else {
      add(t.gpu_vertex(gid), sink, total);
    }
  }
  out.bytes_per_s = static_cast<double>(boost::push_relabel_max_flow(g, source, sink)) * kUnit;
  // Source side of the minimum cut: what the source still reaches through unsaturated edges.
  boost::filtered_graph<FlowGraph, HasResidual> residual(g, HasResidual{res});
  std::vector<boost::default_color_type> color(nv + 2, boost::white_color);
  boost::breadth_first_search(residual, source, boost::color_map(color.data()));
  for (LinkId id = 0; id < t.links().size(); ++id) {
    const auto& l = t.links()[id];
    if (color[l.from] != boost::white_color && color[l.to] == boost::white_color) out.cut_links.push_back(id);
  }
  return out;
}

int diameter_hops(const Topology& t) {
  const std::size_t n = t.gpu_count();
  const int gpn = t.gpus_per_node();
  bool structured = true;
  for (GpuId g = 0; g < n && structured; ++g) structured = t.nic_of(g) != kNoVertex;
  for (std::size_t node = 0; node < t.node_count() && structured && gpn > 1; ++node) {
    structured = t.nvswitch_of_node(static_cast<int>(node)) != kNoVertex;
  }
  int longest = 0;
  if (structured) {
    // route(): GPU-NIC-leaf, switch hops, leaf-NIC-GPU, plus NVLink forwarding at a rail-aligned destination.
    std::set<std::pair<VertexId, int>> leaf_rails;  // (leaf, rail) pairs that host NICs
    for (GpuId g = 0; g < n; ++g) leaf_rails.insert({t.leaf_of(g), t.rail_aligned() ? t.local_index(g) : 0});
    if (gpn > 1) longest = 2;
    const int relay = t.rail_aligned() && gpn > 1 ? 2 : 0;
    if (t.node_count() > 1) {
      for (const auto& [la, ra] : leaf_rails) {
        if (!structured) break;
        for (const auto& [lb, rb] : leaf_rails) {
          if (ra != rb) continue;
          const int d = la == lb ? 0 : t.switch_distance(la, lb);
          if (d == 0xFF) {
            structured = false;
            break;
          }
          longest = std::max(longest, 4 + d + relay);
        }
      }
    }
  }
  if (!structured) {
    // Hand-built graphs: every pair through route() itself.
    longest = 0;
    std::vector<LinkId> path;
    for (GpuId a = 0; a < n; ++a) {
      for (GpuId b = 0; b < n; ++b) {
        t.route_into(a, b, 0, path);
        longest = std::max(longest, static_cast<int>(path.size()));
      }
    }
  }
  return longest;
}

std::array<core::BytesPerSec, kLinkClassCount> injection_bytes_per_s(const Topology& t) {
  std::array<core::BytesPerSec, kLinkClassCount> out{};
  for (const auto& l : t.links()) {
    const int rf = rank(t.vertex(l.from).kind), rt = rank(t.vertex(l.to).kind);
    if (rt > rf || (rt == rf && l.from < l.to)) out[static_cast<std::size_t>(l.link_class)] += l.capacity_bytes_per_s;
  }
  for (auto& v : out) v /= static_cast<double>(t.gpu_count());
  return out;
}

TopologySummary summarize(const Topology& t) {
  TopologySummary s;
  s.gpus = t.gpu_count();
  s.nodes = t.node_count();
  s.links = t.links().size();
  for (VertexId v = 0; v < t.vertex_count(); ++v) {
    const auto k = t.vertex(v).kind;
    ++s.vertices_by_kind[static_cast<std::size_t>(k)];
    if (is_switch(k)) ++s.switches;
  }
  for (const auto& l : t.links()) ++s.links_by_class[static_cast<std::size_t>(l.link_class)];
  s.injection_bytes_per_s = injection_bytes_per_s(t);
  s.diameter_hops = diameter_hops(t);
  s.bisection = bisection(t);
  for (LinkId id : s.bisection.cut_links) ++s.cut_links_by_class[static_cast<std::size_t>(t.links()[id].link_class)];
  return s;
}

}  // namespace k3::topo
