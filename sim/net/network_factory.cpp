#include "sim/net/network_factory.hpp"

#include <string>

#include "core/error.hpp"
#include "sim/net/collectives/collective_engine.hpp"

namespace k3::net {

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

std::unique_ptr<NetworkModel> make_network(const NetworkModelEntry& model, engine::Simulator& sim,
                                           const topo::Topology& topology, const LinkEfficiency& efficiency) {
  auto network = model.make(sim, make_net_links(topology, efficiency));
  sim.add_model(*network);
  return network;
}

}  // namespace k3::net

namespace k3::net {

CollectiveResult simulate_collective(const topo::Topology& topology, const CollectiveSpec& spec,
                                     const NetworkModelEntry& model, const LinkEfficiency& efficiency) {
  engine::Simulator sim;
  auto network = make_network(model, sim, topology, efficiency);
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
