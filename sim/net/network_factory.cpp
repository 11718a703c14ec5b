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

LinkEfficiency register_link_figures(const topo::Topology& topology, core::Provenance& prov) {
  using core::SourceKind;
  LinkEfficiency e;
  std::array<const topo::Link*, topo::kLinkClassCount> first{};
  for (const topo::Link& l : topology.links()) {
    auto& f = first[static_cast<std::size_t>(l.link_class)];
    if (f == nullptr) f = &l;
  }
  const std::string file = "topology " + topology.name() + " (topologies/README.md)";
  for (std::size_t c = 0; c < first.size(); ++c) {
    if (first[c] == nullptr) continue;
    const std::string cls(topo::to_string(static_cast<topo::LinkClass>(c)));
    prov.add_exact("link." + cls + ".bandwidth", first[c]->capacity_bytes_per_s, "B/s", SourceKind::datasheet,
                   file + ": per direction, from the part's datasheet as the topology file cites it");
    // A transfer that crosses the link reaches less than its signalling rate (protocol, header and
    // flow-control overhead). The topology file's `achievable:` section gives the share a collective- or
    // link-level measurement of that link technology reached; without one the line rate is taken, which
    // only an assumption covers.
    if (const auto& a = topology.achievable(static_cast<topo::LinkClass>(c))) {
      e.by_class[c] = prov.add("link." + cls + ".efficiency", a->fraction, a->low, a->high, "fraction",
                               SourceKind::collective_measurement, file + ": " + a->source);
    } else {
      e.by_class[c] = prov.add("link." + cls + ".efficiency", 1.0, 0.80, 1.0, "fraction", SourceKind::assumption,
                               "share of the " + cls + " bandwidth a transfer's payload gets: the topology file "
                               "states none, so the line rate is taken; protocol and header overheads put it as "
                               "low as 0.80 (assumed)");
    }
    const double latency = first[c]->latency_s;
    if (latency > 0) {
      e.latency_scale[c] = prov.add("link." + cls + ".latency", latency, 0.5 * latency, 2 * latency, "s",
                                    SourceKind::assumption, file + ": per hop as the topology file gives it; half "
                                    "to twice that assumed") / latency;
    }
  }
  return e;
}

std::vector<NetLink> make_net_links(const topo::Topology& topology, const LinkEfficiency& efficiency) {
  std::vector<NetLink> links;
  links.reserve(topology.links().size());
  for (const topo::Link& l : topology.links())
    links.push_back(NetLink{l.capacity_bytes_per_s * efficiency.of(l.link_class),
                            l.latency_s * efficiency.latency_scale[static_cast<std::size_t>(l.link_class)]});
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
