#pragma once
// Builds a network model on a topology: one network link per topology link (same ids), capacity scaled
// by a per-link-class efficiency (protocol overhead; e.g. NVLink ring traffic reaches about 80% of line
// rate), which the topology's measurements supply. After them, one copy port per GPU (id = topology links +
// GPU id): what the GPU's SMs reach when a kernel moves NVLink data with its own loads and stores (DeepEP)
// rather than through NCCL's tuned copies; a transfer marked sm_copy crosses its sender's port as well. Last, two
// host ports per GPU (host memory to GPU, then GPU to host memory) at the GPU type's host_link_bytes_per_s (PCIe on
// HGX boards, NVLink-C2C on Grace): what a copy between host and device memory crosses (offloaded weights,
// gradients and optimizer state).
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/provenance.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/net/collectives/collective_plan.hpp"
#include "sim/net/network_model.hpp"
#include "sim/net/network_registry.hpp"
#include "topologies/topology.hpp"

namespace k3::net {

// Fraction of line rate usable by payload, per topologies LinkClass; 1.0 everywhere by default.
struct LinkEfficiency {
  std::array<double, topo::kLinkClassCount> by_class{1.0, 1.0, 1.0, 1.0, 1.0};
  std::array<double, topo::kLinkClassCount> latency_scale{1.0, 1.0, 1.0, 1.0, 1.0};  // x the topology's latency
  double of(topo::LinkClass c) const { return by_class[static_cast<std::size_t>(c)]; }
  void set(topo::LinkClass c, double efficiency);  // throws core::InputError unless 0 < efficiency <= 1
  // SM-driven NVLink copies (DeepEP's kernels): share of the NVLink line rate a GPU's copy port carries.
  // 1.0 leaves the port at line rate, so that only the NVLink links themselves bound.
  double sm_copy_nvlink = 1.0;
};

// The copy port of GPU `g` among a network's links built by make_net_links.
inline NetLinkId sm_copy_port(const topo::Topology& topology, topo::GpuId g) {
  return static_cast<NetLinkId>(topology.links().size() + g);
}

// The host port of GPU `g` a copy in direction `d` (not none) crosses, among the links built by make_net_links.
inline NetLinkId host_port(const topo::Topology& topology, topo::GpuId g, HostCopy d) {
  return static_cast<NetLinkId>(topology.links().size() + topology.gpu_count() + 2 * g + (d == HostCopy::to_host ? 1 : 0));
}
// The links a transfer's flow crosses: `route`, its route between two GPUs, and the sender's copy port after it for
// an SM copy; a host copy crosses its GPU's host port alone. Written into `scratch` where it is not `route` itself.
inline std::span<const NetLinkId> transfer_path(const Transfer& t, std::span<const topo::LinkId> route,
                                                const topo::Topology& topology, std::vector<NetLinkId>& scratch) {
  if (t.host != HostCopy::none) {
    scratch.assign(1, host_port(topology, t.src, t.host));
    return scratch;
  }
  if (!t.sm_copy) return route;
  scratch.assign(route.begin(), route.end());
  scratch.push_back(sm_copy_port(topology, t.src));
  return scratch;
}
// All host ports of `topology` together, both directions of every GPU's: what a step's host traffic is measured against.
inline core::BytesPerSec host_ports_bytes_per_s(const topo::Topology& topology) {
  return 2.0 * static_cast<double>(topology.gpu_count()) * topology.gpu_type().host_link_bytes_per_s;
}
// How many links make_net_links builds on `topology`.
inline std::size_t net_link_count(const topo::Topology& topology) {
  return topology.links().size() + 3 * topology.gpu_count();
}

// A link class's achievable share of line rate and its per-hop latency as collectives measured them on the GPU itself
// (sim/cost/measured_links.hpp derives them from NCCL's tables); they replace the topology file's figures.
struct MeasuredLinkRate {
  double fraction = 1, low = 1, high = 1;  // of line rate, with the spread of the measurements
  double hop_latency_s = 0, hop_latency_low_s = 0, hop_latency_high_s = 0;  // 0: the topology's latency is kept
  std::string source;
};
using MeasuredLinkRates = std::array<std::optional<MeasuredLinkRate>, topo::kLinkClassCount>;

// Registers the share of NVLink line rate DeepEP's SM-driven copies reach and returns it, for the runs of the
// DeepEP algorithms: `measured` where DeepEP was measured on the GPU itself (sim/cost/measured_links.hpp), else
// its intranode kernels' published rate on another Hopper part.
double register_deepep_copy_rate(core::Provenance& prov, const std::optional<MeasuredLinkRate>& measured = std::nullopt);

// Registers each link class the topology has: its bandwidth per direction (exact, from the topology file),
// the fraction of it a transfer achieves and its per-hop latency (`measured` where it has the class, else the
// topology file's `achievable:` section, else assumptions with ranges); returns the efficiencies and latency
// scales read back from `prov`.
LinkEfficiency register_link_figures(const topo::Topology& topology, core::Provenance& prov,
                                     const MeasuredLinkRates& measured = {});

std::vector<NetLink> make_net_links(const topo::Topology& topology, const LinkEfficiency& efficiency = {});
std::unique_ptr<NetworkModel> make_network(const NetworkModelEntry& model, engine::Simulator& sim, const topo::Topology& topology,
                                           const LinkEfficiency& efficiency = {});
// On links already made (make_net_links), shared with the other networks built on them.
std::unique_ptr<NetworkModel> make_network(const NetworkModelEntry& model, engine::Simulator& sim, NetLinks links);

}  // namespace k3::net

#include "sim/net/collectives/collective_plan.hpp"

namespace k3::net {

// One collective alone on an idle network, in a fresh Simulator: what `k3sim collective` prints per size.
CollectiveResult simulate_collective(const topo::Topology& topology, const CollectiveSpec& spec,
                                     const NetworkModelEntry& model,
                                     const LinkEfficiency& efficiency = {});

}  // namespace k3::net
