// Routing. A GPU-to-GPU path is assembled from the parts the hardware has: NVLink inside a node; GPU ->
// NIC -> leaf, leaf -> ... -> leaf over the fabric, leaf -> NIC -> GPU between nodes. The fabric part walks
// equal-cost shortest paths using hop distances to the destination leaf from a Boost BFS over the
// switch-only graph: in a BFS from the destination over full-duplex links, the predecessor set of a switch
// u is exactly its neighbours at distance d(u) - 1, so storing the distances (one byte per switch per
// destination leaf: 10 MB for the 65,536-endpoint three-tier tree) stands for all predecessor sets.
// Hand-built graphs that do not have that shape fall back to the same walk over the whole graph.
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>

#include <limits>

#include "core/error.hpp"
#include "topologies/route_cache.hpp"
#include "topologies/topology.hpp"

namespace k3::topo {

namespace {

constexpr std::uint8_t kUnreachable8 = 0xFF;
constexpr std::uint16_t kUnreachable16 = 0xFFFF;

// SplitMix64: the flow key's offset into the D-mod-k choice; key 0 leaves pure destination-modulo.
std::uint64_t mix_flow_key(std::uint64_t key) {
  if (key == 0) return 0;
  std::uint64_t z = key + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

template <class Dist>
std::vector<Dist> bfs_distances(const Graph& g, std::size_t source, Dist unreachable) {
  std::vector<Dist> dist(boost::num_vertices(g), unreachable);
  dist[source] = 0;
  std::vector<boost::default_color_type> color(boost::num_vertices(g), boost::white_color);
  boost::breadth_first_search(
      g, source,
      boost::visitor(boost::make_bfs_visitor(boost::record_distances(dist.data(), boost::on_tree_edge())))
          .color_map(color.data()));
  return dist;
}

// Follows the equal-cost next hops from `from` down to distance 0. At each hop with n candidates the
// choice is key mod n, and key is divided by n for the next hop (mixed radix): with key = destination port
// number this is the classic D-mod-k routing that loads fat-tree uplinks evenly under all-to-all.
template <class Dist>
bool walk_down(const Graph& g, const std::vector<Dist>& dist, std::size_t from, std::uint64_t key,
               Dist unreachable, std::vector<LinkId>& out) {
  if (dist[from] == unreachable) return false;
  std::size_t u = from;
  while (dist[u] != 0) {
    const Dist want = static_cast<Dist>(dist[u] - 1);
    std::uint64_t n = 0;
    for (auto [e, end] = boost::out_edges(u, g); e != end; ++e) n += dist[boost::target(*e, g)] == want ? 1 : 0;
    K3SIM_ASSERT(n > 0, "BFS distances without a next hop");
    std::uint64_t pick = key % n;
    key /= n;
    for (auto [e, end] = boost::out_edges(u, g); e != end; ++e) {
      if (dist[boost::target(*e, g)] != want) continue;
      if (pick-- == 0) {
        out.push_back(g[*e].link);
        u = boost::target(*e, g);
        break;
      }
    }
  }
  return true;
}

}  // namespace

const std::vector<std::uint8_t>& Topology::switch_distances_to(std::uint32_t ordinal) const {
  std::call_once(cache_->switch_once[ordinal], [&] {
    cache_->switch_dist[ordinal] = bfs_distances<std::uint8_t>(switch_graph_, ordinal, kUnreachable8);
  });
  return cache_->switch_dist[ordinal];
}

int Topology::switch_distance(VertexId from_switch, VertexId to_switch) const {
  K3SIM_ASSERT(is_switch(vertices_[from_switch].kind) && is_switch(vertices_[to_switch].kind), "not a switch");
  return switch_distances_to(switch_ordinal_[to_switch])[switch_ordinal_[from_switch]];
}

const std::vector<std::uint16_t>& Topology::vertex_distances_to(VertexId v) const {
  std::lock_guard lock(cache_->generic_mutex);
  auto& slot = cache_->generic_dist[v];
  if (!slot) slot = std::make_unique<const std::vector<std::uint16_t>>(bfs_distances<std::uint16_t>(graph_, v, kUnreachable16));
  return *slot;
}

bool Topology::walk_generic(VertexId from, VertexId to, std::uint64_t choice, std::vector<LinkId>& out) const {
  return walk_down(graph_, vertex_distances_to(to), from, choice, kUnreachable16, out);
}

bool Topology::append_nvlink_hop(GpuId a, GpuId b, std::vector<LinkId>& out) const {
  const VertexId va = gpu_vertex_[a], vb = gpu_vertex_[b];
  if (const LinkId direct = find_link(va, vb); direct != kNoLink) {
    out.push_back(direct);
    return true;
  }
  const VertexId nvs = node_nvswitch_[static_cast<std::size_t>(node_of(a))];
  if (nvs == kNoVertex || node_of(a) != node_of(b)) return false;
  const LinkId up = find_link(va, nvs), down = find_link(nvs, vb);
  if (up == kNoLink || down == kNoLink) return false;
  out.push_back(up);
  out.push_back(down);
  return true;
}

void Topology::route_into(GpuId a, GpuId b, std::uint64_t flow_key, std::vector<LinkId>& out) const {
  out.clear();
  const VertexId va = gpu_vertex(a), vb = gpu_vertex(b);
  if (a == b) return;
  const std::uint64_t offset = mix_flow_key(flow_key);
  const int na = node_of(a), nb = node_of(b);
  if (na == nb && append_nvlink_hop(a, b, out)) return;
  if (na != nb) {
    // Rail-aligned: cross the network on the source's rail, then NVLink inside the destination node.
    const GpuId relay = rail_aligned_ ? gpu_at(nb, local_index(a)) : b;
    const VertexId nic_a = gpu_nic_[a], nic_r = gpu_nic_[relay], leaf_a = gpu_leaf_[a], leaf_r = gpu_leaf_[relay];
    if (nic_a != kNoVertex && nic_r != kNoVertex) {
      const LinkId first[2] = {find_link(va, nic_a), find_link(nic_a, leaf_a)};
      const LinkId last[2] = {find_link(leaf_r, nic_r), find_link(nic_r, gpu_vertex_[relay])};
      if (first[0] != kNoLink && first[1] != kNoLink && last[0] != kNoLink && last[1] != kNoLink) {
        out.insert(out.end(), std::begin(first), std::end(first));
        bool ok = true;
        if (leaf_a != leaf_r) {
          ok = walk_down(switch_graph_, switch_distances_to(switch_ordinal_[leaf_r]), switch_ordinal_[leaf_a],
                         offset + gpu_endpoint_[relay], kUnreachable8, out);
        }
        if (ok) {
          out.insert(out.end(), std::begin(last), std::end(last));
          if (relay == b || append_nvlink_hop(relay, b, out)) return;
        }
      }
    }
  }
  out.clear();
  const bool found = walk_generic(va, vb, offset + vb, out);
  K3SIM_ASSERT(found, "no path between GPUs of a connected topology");
}

std::span<const LinkId> Topology::route(GpuId a, GpuId b, std::uint64_t flow_key) const {
  const RouteKey key{a, b, flow_key};
  const std::size_t h = RouteKeyHash{}(key);
  auto& shard = cache_->shards[h % RouteCache::kShards];
  {
    std::shared_lock lock(shard.mutex);
    if (auto it = shard.routes.find(key); it != shard.routes.end()) return it->second;
  }
  std::vector<LinkId> path;
  route_into(a, b, flow_key, path);
  path.shrink_to_fit();
  std::unique_lock lock(shard.mutex);
  auto [it, inserted] = shard.routes.try_emplace(key, std::move(path));
  return it->second;
}

}  // namespace k3::topo
