#pragma once
// What a planner reads off a topology: counts, per-GPU injection bandwidth per link class, diameter and
// bisection bandwidth (max-flow across a balanced split of the GPUs) with the links of the minimum cut.
#include <array>
#include <cstddef>
#include <vector>

#include "topologies/topology.hpp"

namespace k3::topo {

struct Bisection {
  core::BytesPerSec bytes_per_s = 0;  // max flow from GPUs [0, N/2) to GPUs [N/2, N), one direction
  std::vector<LinkId> cut_links;      // directed links of the minimum cut, first half -> second half
};
// Boost push-relabel max-flow on the directed links (capacities rounded to whole bytes/s).
Bisection bisection(const Topology& t);

// Longest GPU-to-GPU route, in links.
int diameter_hops(const Topology& t);

// Per link class: capacity of the links of that class pointing away from the GPUs (GPU -> NVSwitch,
// GPU -> NIC, NIC -> leaf, leaf -> spine, spine -> core), summed and divided by the GPU count.
std::array<core::BytesPerSec, kLinkClassCount> injection_bytes_per_s(const Topology& t);

struct TopologySummary {
  std::size_t gpus = 0, nodes = 0, switches = 0, links = 0;
  std::array<std::size_t, kVertexKindCount> vertices_by_kind{};
  std::array<std::size_t, kLinkClassCount> links_by_class{};
  std::array<core::BytesPerSec, kLinkClassCount> injection_bytes_per_s{};
  int diameter_hops = 0;
  Bisection bisection;
  std::array<std::size_t, kLinkClassCount> cut_links_by_class{};
};
TopologySummary summarize(const Topology& t);

}  // namespace k3::topo
