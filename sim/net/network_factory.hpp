#pragma once
// Builds a network model on a topology: one network link per topology link (same ids), capacity scaled
// by a per-link-class efficiency (protocol overhead; e.g. NVLink ring traffic reaches about 80% of line
// rate), which the scenario or a calibration profile supplies.
#include <array>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "core/provenance.hpp"
#include "sim/engine/simulator.hpp"
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
};

// Registers each link class the topology has: its bandwidth per direction (exact, from the topology file),
// the fraction of it a transfer achieves and its per-hop latency (assumptions with ranges); returns the
// efficiencies and latency scales read back from `prov`.
LinkEfficiency register_link_figures(const topo::Topology& topology, core::Provenance& prov);

std::vector<NetLink> make_net_links(const topo::Topology& topology, const LinkEfficiency& efficiency = {});
std::unique_ptr<NetworkModel> make_network(const NetworkModelEntry& model, engine::Simulator& sim, const topo::Topology& topology,
                                           const LinkEfficiency& efficiency = {});

}  // namespace k3::net

#include "sim/net/collectives/collective_spec.hpp"

namespace k3::net {

// One collective alone on an idle network, in a fresh Simulator: what `k3sim collective` prints per size.
CollectiveResult simulate_collective(const topo::Topology& topology, const CollectiveSpec& spec,
                                     const NetworkModelEntry& model,
                                     const LinkEfficiency& efficiency = {});

}  // namespace k3::net
