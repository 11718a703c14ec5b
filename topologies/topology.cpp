#include "topologies/topology.hpp"

#include <boost/graph/breadth_first_search.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "topologies/route_cache.hpp"

namespace k3::topo {

std::string_view to_string(LinkClass c) {
  switch (c) {
    case LinkClass::nvlink: return "nvlink";
    case LinkClass::pcie: return "pcie";
    case LinkClass::nic: return "nic";
    case LinkClass::leaf_spine: return "leaf_spine";
    case LinkClass::spine_core: return "spine_core";
  }
  return "?";
}

std::string_view to_string(VertexKind k) {
  switch (k) {
    case VertexKind::gpu: return "gpu";
    case VertexKind::nvswitch: return "nvswitch";
    case VertexKind::nic: return "nic";
    case VertexKind::leaf: return "leaf";
    case VertexKind::spine: return "spine";
    case VertexKind::core: return "core";
  }
  return "?";
}

bool is_switch(VertexKind k) { return k == VertexKind::leaf || k == VertexKind::spine || k == VertexKind::core; }

Topology::Topology() = default;
Topology::~Topology() = default;
Topology::Topology(Topology&&) noexcept = default;
Topology& Topology::operator=(Topology&&) noexcept = default;

namespace {

// Rebuilt from the link list rather than copied: same out-edge order, so routes are identical.
void add_links(Graph& g, const std::vector<Link>& links, const std::vector<std::uint32_t>* ordinal) {
  for (LinkId id = 0; id < links.size(); ++id) {
    const auto& l = links[id];
    if (!ordinal) {
      boost::add_edge(l.from, l.to, EdgeProps{id}, g);
    } else if ((*ordinal)[l.from] != 0xFFFFFFFFu && (*ordinal)[l.to] != 0xFFFFFFFFu) {
      boost::add_edge((*ordinal)[l.from], (*ordinal)[l.to], EdgeProps{id}, g);
    }
  }
}

}  // namespace

// A copy shares nothing mutable: it starts with an empty cache of its own.
Topology::Topology(const Topology& o)
    : name_(o.name_), gpu_type_(o.gpu_type_), achievable_(o.achievable_), gpus_per_node_(o.gpus_per_node_), rail_aligned_(o.rail_aligned_),
      graph_(o.vertices_.size()), vertices_(o.vertices_), links_(o.links_), gpu_vertex_(o.gpu_vertex_),
      gpu_nic_(o.gpu_nic_), gpu_leaf_(o.gpu_leaf_), gpu_endpoint_(o.gpu_endpoint_), node_nvswitch_(o.node_nvswitch_),
      switch_ordinal_(o.switch_ordinal_), switch_vertex_(o.switch_vertex_), switch_graph_(o.switch_vertex_.size()),
      cache_(std::make_unique<RouteCache>(o.switch_vertex_.size())) {
  add_links(graph_, links_, nullptr);
  add_links(switch_graph_, links_, &switch_ordinal_);
}

Topology& Topology::operator=(const Topology& o) {
  if (this != &o) *this = Topology(o);
  return *this;
}

core::BytesPerSec Topology::line_rate(LinkClass c) const {
  core::BytesPerSec rate = 0;
  for (const Link& l : links_) {
    if (l.link_class == c) rate = std::max(rate, l.capacity_bytes_per_s);
  }
  return rate;
}

int Topology::node_of(GpuId g) const {
  if (g >= gpu_count()) throw std::out_of_range("GPU id " + std::to_string(g) + " out of range");
  return static_cast<int>(g / static_cast<GpuId>(gpus_per_node_));
}

int Topology::local_index(GpuId g) const {
  if (g >= gpu_count()) throw std::out_of_range("GPU id " + std::to_string(g) + " out of range");
  return static_cast<int>(g % static_cast<GpuId>(gpus_per_node_));
}

GpuId Topology::gpu_at(int node, int local) const {
  if (node < 0 || local < 0 || local >= gpus_per_node_ || static_cast<std::size_t>(node) >= node_count()) {
    throw std::out_of_range("no GPU at node " + std::to_string(node) + " local " + std::to_string(local));
  }
  return static_cast<GpuId>(node * gpus_per_node_ + local);
}

VertexId Topology::gpu_vertex(GpuId g) const {
  if (g >= gpu_count()) throw std::out_of_range("GPU id " + std::to_string(g) + " out of range");
  return gpu_vertex_[g];
}

LinkId Topology::find_link(VertexId u, VertexId v) const {
  for (auto [e, end] = boost::out_edges(u, graph_); e != end; ++e) {
    if (boost::target(*e, graph_) == v) return graph_[*e].link;
  }
  return kNoLink;
}

std::size_t Topology::cached_route_count() const {
  std::size_t n = 0;
  for (auto& shard : cache_->shards) {
    std::shared_lock lock(shard.mutex);
    n += shard.routes.size();
  }
  return n;
}

// ---------------------------------------------------------------------------------------------- builder

TopologyBuilder::TopologyBuilder(std::string name, GpuType gpu_type)
    : name_(std::move(name)), gpu_type_(std::move(gpu_type)) {}

void TopologyBuilder::reserve(std::size_t vertices, std::size_t links) {
  vertices_.reserve(vertices);
  links_.reserve(links);
}

VertexId TopologyBuilder::add_gpu(int node) {
  if (node < 0) throw std::invalid_argument("a GPU needs a node >= 0");
  const auto id = static_cast<VertexId>(vertices_.size());
  vertices_.push_back({VertexKind::gpu, node});
  if (node_gpus_.size() <= static_cast<std::size_t>(node)) node_gpus_.resize(static_cast<std::size_t>(node) + 1);
  node_gpus_[static_cast<std::size_t>(node)].push_back(id);
  return id;
}

VertexId TopologyBuilder::add_vertex(VertexKind kind, int node) {
  if (kind == VertexKind::gpu) return add_gpu(node);
  if (is_switch(kind) != (node < 0)) {
    throw std::invalid_argument("fabric switches take node -1; NVSwitches and NICs belong to a node");
  }
  const auto id = static_cast<VertexId>(vertices_.size());
  vertices_.push_back({kind, node});
  return id;
}

LinkId TopologyBuilder::add_duplex(VertexId a, VertexId b, core::BytesPerSec capacity_bytes_per_s,
                                   core::Seconds latency_s, LinkClass link_class) {
  return add_duplex(a, b, capacity_bytes_per_s, capacity_bytes_per_s, latency_s, link_class);
}

LinkId TopologyBuilder::add_duplex(VertexId a, VertexId b, core::BytesPerSec a_to_b_bytes_per_s,
                                   core::BytesPerSec b_to_a_bytes_per_s, core::Seconds latency_s,
                                   LinkClass link_class) {
  if (a >= vertices_.size() || b >= vertices_.size() || a == b) throw std::invalid_argument("bad link endpoints");
  if (!(a_to_b_bytes_per_s > 0) || !(b_to_a_bytes_per_s > 0) || !(latency_s >= 0)) {
    throw std::invalid_argument("link capacity must be > 0 and latency >= 0");
  }
  const auto id = static_cast<LinkId>(links_.size());
  links_.push_back({a, b, a_to_b_bytes_per_s, latency_s, link_class});
  links_.push_back({b, a, b_to_a_bytes_per_s, latency_s, link_class});
  return id;
}

namespace {

// The unique out-neighbour of v matching pred, or kNoVertex when there is none or more than one.
template <class Pred>
VertexId unique_neighbour(const Graph& g, VertexId v, Pred pred) {
  VertexId found = kNoVertex;
  for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
    const auto w = static_cast<VertexId>(boost::target(*e, g));
    if (!pred(w)) continue;
    if (found != kNoVertex && found != w) return kNoVertex;
    found = w;
  }
  return found;
}

}  // namespace

Topology TopologyBuilder::build() && {
  Topology t;
  if (node_gpus_.empty()) throw std::invalid_argument("a topology needs at least one GPU");
  const std::size_t gpn = node_gpus_.front().size();
  for (std::size_t n = 0; n < node_gpus_.size(); ++n) {
    if (node_gpus_[n].size() != gpn || gpn == 0) {
      throw std::invalid_argument("every node 0.." + std::to_string(node_gpus_.size() - 1) +
                                  " needs the same number of GPUs; node " + std::to_string(n) + " has " +
                                  std::to_string(node_gpus_[n].size()));
    }
  }
  t.name_ = std::move(name_);
  t.gpu_type_ = std::move(gpu_type_);
  t.achievable_ = std::move(achievable_);
  t.gpus_per_node_ = static_cast<int>(gpn);
  t.rail_aligned_ = rail_aligned_;
  const std::size_t nv = vertices_.size();
  t.graph_ = Graph(nv);
  add_links(t.graph_, links_, nullptr);
  t.vertices_ = std::move(vertices_);
  t.links_ = std::move(links_);
  for (const auto& gpus : node_gpus_) t.gpu_vertex_.insert(t.gpu_vertex_.end(), gpus.begin(), gpus.end());

  const auto& g = t.graph_;
  const auto& vx = t.vertices_;
  t.node_nvswitch_.assign(node_gpus_.size(), kNoVertex);
  for (std::size_t n = 0; n < node_gpus_.size(); ++n) {
    const auto nvs = unique_neighbour(g, node_gpus_[n].front(), [&](VertexId w) {
      return vx[w].kind == VertexKind::nvswitch && vx[w].node == static_cast<int>(n);
    });
    t.node_nvswitch_[n] = nvs;
  }
  // Fabric switches get dense ordinals; each NIC a port number in switch order (the D-mod-k key).
  t.switch_ordinal_.assign(nv, 0xFFFFFFFFu);
  std::vector<std::uint32_t> nic_endpoint(nv, 0);
  std::uint32_t endpoint = 0;
  for (VertexId v = 0; v < nv; ++v) {
    if (!is_switch(vx[v].kind)) continue;
    t.switch_ordinal_[v] = static_cast<std::uint32_t>(t.switch_vertex_.size());
    t.switch_vertex_.push_back(v);
    for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
      const auto w = boost::target(*e, g);
      if (vx[w].kind == VertexKind::nic) nic_endpoint[w] = endpoint++;
    }
  }
  t.switch_graph_ = Graph(t.switch_vertex_.size());
  add_links(t.switch_graph_, t.links_, &t.switch_ordinal_);
  const std::size_t ngpu = t.gpu_vertex_.size();
  t.gpu_nic_.assign(ngpu, kNoVertex);
  t.gpu_leaf_.assign(ngpu, kNoVertex);
  t.gpu_endpoint_.assign(ngpu, 0);
  for (GpuId gid = 0; gid < ngpu; ++gid) {
    const VertexId gv = t.gpu_vertex_[gid];
    const auto nic = unique_neighbour(g, gv, [&](VertexId w) { return vx[w].kind == VertexKind::nic && vx[w].node == vx[gv].node; });
    if (nic == kNoVertex) continue;
    const auto leaf = unique_neighbour(g, nic, [&](VertexId w) { return is_switch(vx[w].kind); });
    if (leaf == kNoVertex) continue;
    t.gpu_nic_[gid] = nic;
    t.gpu_leaf_[gid] = leaf;
    t.gpu_endpoint_[gid] = nic_endpoint[nic];
  }
  // Every link is full duplex, so reaching every GPU from GPU 0 means every pair has a route.
  std::vector<boost::default_color_type> color(nv, boost::white_color);
  boost::breadth_first_search(g, t.gpu_vertex_.front(), boost::color_map(color.data()));
  for (GpuId gid = 0; gid < ngpu; ++gid) {
    if (color[t.gpu_vertex_[gid]] == boost::white_color) {
      throw std::invalid_argument("topology '" + t.name_ + "' is disconnected: GPU " + std::to_string(gid) +
                                  " cannot be reached from GPU 0");
    }
  }
  t.cache_ = std::make_unique<RouteCache>(t.switch_vertex_.size());
  return t;
}

}  // namespace k3::topo
