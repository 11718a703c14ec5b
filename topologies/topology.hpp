#pragma once
// A cluster as a directed graph: GPUs, NVSwitches, NICs and leaf/spine/core switches joined by links that
// each carry one direction of a full-duplex cable. The flow-level network engine asks route() for the
// links a flow crosses; the analysis (topologies/analysis.hpp) reads links() and the Boost graph.
// Copying a Boost adjacency_list trips GCC 12's -Wmaybe-uninitialized inside Boost's edge iterator
// (a false positive in boost/graph/detail/adj_list_edge_iterator.hpp); silenced for that header only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <boost/graph/detail/adj_list_edge_iterator.hpp>
#pragma GCC diagnostic pop
#endif
#include <boost/graph/adjacency_list.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/units.hpp"

namespace k3::topo {

enum class VertexKind : std::uint8_t { gpu, nvswitch, nic, leaf, spine, core };
enum class LinkClass : std::uint8_t { nvlink, pcie, nic, leaf_spine, spine_core };
inline constexpr int kLinkClassCount = 5;
inline constexpr int kVertexKindCount = 6;

std::string_view to_string(LinkClass c);
std::string_view to_string(VertexKind k);
bool is_switch(VertexKind k);  // leaf, spine or core: the scale-out fabric

using VertexId = std::uint32_t;
using LinkId = std::uint32_t;
using GpuId = std::uint32_t;
inline constexpr VertexId kNoVertex = 0xFFFFFFFFu;

// One direction of a cable.
struct Link {
  VertexId from = 0, to = 0;
  core::BytesPerSec capacity_bytes_per_s = 0;
  core::Seconds latency_s = 0;
  LinkClass link_class = LinkClass::nvlink;
};

struct GpuType {
  std::string name;
  double bf16_flops_per_s = 0, fp8_flops_per_s = 0;  // dense peak; fp8 is 0 where the GPU has none
  // Block-scaled formats the tensor cores scale in hardware (Blackwell on): OCP MXFP8 and NVFP4; 0 where absent.
  double mxfp8_flops_per_s = 0, nvfp4_flops_per_s = 0;
  double hbm_bytes = 0, hbm_bytes_per_s = 0;
  int sms = 0;
  // GPU <-> host memory, per direction: PCIe on HGX boards, NVLink-C2C on Grace superchips; 0 where not stated.
  double host_link_bytes_per_s = 0;
  // The host's DRAM bandwidth per GPU on the vendor's reference system (an optimizer step run on the CPU); 0: none.
  double host_memory_bytes_per_s = 0;
  std::string source;  // where the figures come from
};

// The share of a link class's line rate that a transfer's payload reaches (protocol, header and flow-control
// overhead), as a collective- or link-level measurement of that link technology gave it: the topology file's
// `achievable:` section. Absent for a class the file says nothing about (line rate, an assumption).
struct AchievableRate {
  double fraction = 1.0;
  double low = 1.0, high = 1.0;  // the measured spread (or the range the source allows)
  std::string source;
};
using AchievableRates = std::array<std::optional<AchievableRate>, kLinkClassCount>;

struct VertexInfo {
  VertexKind kind = VertexKind::gpu;
  std::int32_t node = -1;  // node (NVLink domain) of GPUs, NVSwitches and NICs; -1 for fabric switches
};

struct EdgeProps {
  LinkId link = 0;
};
// vecS everywhere: vertex and edge storage stays compact at 65K GPUs (~650K directed links).
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property, EdgeProps>;

struct RouteCache;  // defined in route_cache.hpp; guarded for concurrent readers

class Topology {
 public:
  Topology(const Topology& other);
  Topology& operator=(const Topology& other);
  Topology(Topology&&) noexcept;
  Topology& operator=(Topology&&) noexcept;
  ~Topology();

  const std::string& name() const { return name_; }
  std::size_t gpu_count() const { return gpu_vertex_.size(); }
  int gpus_per_node() const { return gpus_per_node_; }
  std::size_t node_count() const { return gpus_per_node_ == 0 ? 0 : gpu_count() / static_cast<std::size_t>(gpus_per_node_); }
  // GPUs are numbered node-major: GpuId = node * gpus_per_node + local_index.
  int node_of(GpuId g) const;
  int local_index(GpuId g) const;  // position inside its node (its rail)
  GpuId gpu_at(int node, int local) const;
  VertexId gpu_vertex(GpuId g) const;
  const std::vector<Link>& links() const { return links_; }
  const GpuType& gpu_type() const { return gpu_type_; }
  const std::optional<AchievableRate>& achievable(LinkClass c) const {
    return achievable_[static_cast<std::size_t>(c)];
  }
  // The fastest line rate per direction among the links of a class; 0 when the topology has none.
  core::BytesPerSec line_rate(LinkClass c) const;
  const Graph& graph() const { return graph_; }
  std::size_t vertex_count() const { return vertices_.size(); }
  const VertexInfo& vertex(VertexId v) const { return vertices_[v]; }
  // True when cross-rail traffic goes over the network on the source's rail, then NVLink at the
  // destination node (rail-optimised and multi-plane fabrics; DeepEP does this).
  bool rail_aligned() const { return rail_aligned_; }

  // Directed links from GPU a to GPU b (a != b; empty when a == b), loop-free, deterministic. Among
  // equal-cost paths the choice is destination-modulo (D-mod-k) offset by a hash of flow_key, which spreads
  // an all-to-all evenly over the spines. Cached: the span stays valid for the Topology's lifetime and a
  // repeated (a, b, flow_key) costs one hash lookup. Safe to call from many threads at once.
  std::span<const LinkId> route(GpuId a, GpuId b, std::uint64_t flow_key = 0) const;
  // The same path written into `out` without touching the cache (for sweeps over millions of pairs).
  void route_into(GpuId a, GpuId b, std::uint64_t flow_key, std::vector<LinkId>& out) const;
  // Number of routes held by the cache.
  std::size_t cached_route_count() const;

  // Hop distance between two fabric switches over switch-to-switch links (255 when unreachable).
  int switch_distance(VertexId from_switch, VertexId to_switch) const;
  VertexId nic_of(GpuId g) const { return gpu_nic_[g]; }
  VertexId leaf_of(GpuId g) const { return gpu_leaf_[g]; }
  VertexId nvswitch_of_node(int node) const { return node_nvswitch_[static_cast<std::size_t>(node)]; }
  // The link from u to v, or kNoLink.
  static constexpr LinkId kNoLink = 0xFFFFFFFFu;
  LinkId find_link(VertexId u, VertexId v) const;

 private:
  friend class TopologyBuilder;
  Topology();
  const std::vector<std::uint8_t>& switch_distances_to(std::uint32_t switch_ordinal) const;
  const std::vector<std::uint16_t>& vertex_distances_to(VertexId v) const;
  bool walk_generic(VertexId from, VertexId to, std::uint64_t choice, std::vector<LinkId>& out) const;
  bool append_nvlink_hop(GpuId a, GpuId b, std::vector<LinkId>& out) const;

  std::string name_;
  GpuType gpu_type_;
  AchievableRates achievable_{};
  int gpus_per_node_ = 0;
  bool rail_aligned_ = false;
  Graph graph_;
  std::vector<VertexInfo> vertices_;
  std::vector<Link> links_;
  std::vector<VertexId> gpu_vertex_;         // by GpuId
  std::vector<VertexId> gpu_nic_;            // by GpuId, kNoVertex when the GPU has no NIC
  std::vector<VertexId> gpu_leaf_;           // switch the GPU's NIC plugs into, or kNoVertex
  std::vector<std::uint32_t> gpu_endpoint_;  // fabric port number of the GPU's NIC (D-mod-k key)
  std::vector<VertexId> node_nvswitch_;      // by node, kNoVertex when the node has none
  std::vector<std::uint32_t> switch_ordinal_;  // by vertex; dense index among fabric switches
  std::vector<VertexId> switch_vertex_;        // by switch ordinal
  Graph switch_graph_;                         // fabric switches only, for per-destination BFS
  std::unique_ptr<RouteCache> cache_;
};

// Builds a Topology by hand: vertices, then full-duplex links. Used by the fabric generators and by tests
// of other modules. GPUs get GpuIds node-major in the order they were added within their node.
class TopologyBuilder {
 public:
  TopologyBuilder(std::string name, GpuType gpu_type);
  VertexId add_gpu(int node);
  // NVSwitches and NICs belong to a node; leaf/spine/core switches take node -1.
  VertexId add_vertex(VertexKind kind, int node = -1);
  // Two directed links, a->b then b->a; returns the a->b LinkId (b->a is that + 1).
  LinkId add_duplex(VertexId a, VertexId b, core::BytesPerSec capacity_bytes_per_s, core::Seconds latency_s,
                    LinkClass link_class);
  LinkId add_duplex(VertexId a, VertexId b, core::BytesPerSec a_to_b_bytes_per_s, core::BytesPerSec b_to_a_bytes_per_s,
                    core::Seconds latency_s, LinkClass link_class);
  void set_rail_aligned(bool on) { rail_aligned_ = on; }
  void set_achievable(const AchievableRates& rates) { achievable_ = rates; }
  void reserve(std::size_t vertices, std::size_t links);
  // Throws std::invalid_argument when nodes have unequal GPU counts or a GPU cannot reach every other.
  Topology build() &&;

 private:
  std::string name_;
  GpuType gpu_type_;
  AchievableRates achievable_{};
  bool rail_aligned_ = false;
  std::vector<VertexInfo> vertices_;
  std::vector<Link> links_;
  std::vector<std::vector<VertexId>> node_gpus_;
};

// A preset name (k3sim topo lists them) or a path to a topology YAML file, with "key=value" overrides such
// as "nodes=512" or "fabric.radix=128". Bad input throws core::InputError naming file, key, line and what
// is allowed. Defined in topologies/load.cpp (load.hpp has the ClusterSpec-level functions).
Topology load_topology(const std::string& preset_or_path, const std::vector<std::string>& overrides = {});

}  // namespace k3::topo
