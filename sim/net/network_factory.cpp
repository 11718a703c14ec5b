#include "sim/net/network_factory.hpp"

#include <string>

#include "sim/core/error.hpp"
#include "sim/net/analytical_network.hpp"
#include "sim/net/collective_engine.hpp"
#include "sim/net/flow_network.hpp"

namespace k3::net {

std::string_view to_string(NetworkKind kind) { return kind == NetworkKind::flow ? "flow" : "analytical"; }

std::optional<NetworkKind> parse_network_kind(std::string_view text) {
  if (text == "flow") return NetworkKind::flow;
  if (text == "analytical") return NetworkKind::analytical;
  return std::nullopt;
}

void LinkEfficiency::set(topo::LinkClass c, double efficiency) {
  if (!(efficiency > 0 && efficiency <= 1))
    throw core::InputError({"", "efficiency." + std::string(topo::to_string(c)), 0},
                           "efficiency " + std::to_string(efficiency) + " is out of range", "0 < efficiency <= 1");
  by_class[static_cast<std::size_t>(c)] = efficiency;
}

std::vector<NetLink> make_net_links(const topo::Topology& topology, const LinkEfficiency& efficiency) {
  std::vector<NetLink> links;
  links.reserve(topology.links().size());
  for (const topo::Link& l : topology.links())
    links.push_back(NetLink{l.capacity_bytes_per_s * efficiency.of(l.link_class), l.latency_s});
  return links;
}

std::unique_ptr<NetworkModel> make_network(NetworkKind kind, engine::Simulator& sim, const topo::Topology& topology,
                                           const LinkEfficiency& efficiency) {
  auto links = make_net_links(topology, efficiency);
  std::unique_ptr<NetworkModel> model;
  if (kind == NetworkKind::flow) {
    model = std::make_unique<FlowNetwork>(sim, std::move(links));
  } else {
    model = std::make_unique<AnalyticalNetwork>(sim, std::move(links));
  }
  sim.add_model(*model);
  return model;
}

}  // namespace k3::net

namespace k3::net {

CollectiveResult simulate_collective(const topo::Topology& topology, const CollectiveSpec& spec, NetworkKind kind,
                                     const LinkEfficiency& efficiency) {
  engine::Simulator sim;
  auto network = make_network(kind, sim, topology, efficiency);
  CollectiveEngine collectives(sim, *network, topology);
  CollectiveResult result;
  bool done = false;
  collectives.start(spec, [&](const CollectiveResult& r) {
    result = r;
    done = true;
  });
  sim.run();
  K3SIM_ASSERT(done, "collective did not complete");
  return result;
}

}  // namespace k3::net
