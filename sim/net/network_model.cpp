#include "sim/net/network_model.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace k3::net {

NetworkModel::NetworkModel(engine::Simulator& sim, std::vector<NetLink> links)
    : sim_(sim), links_(std::move(links)), finished_bytes_(links_.size(), 0.0) {
  for (const NetLink& l : links_) {
    K3SIM_ASSERT(l.capacity_bytes_per_s > 0, "network link with non-positive capacity");
    K3SIM_ASSERT(l.latency_s >= 0, "network link with negative latency");
  }
}

Seconds NetworkModel::path_latency_s(std::span<const NetLinkId> path) const {
  Seconds total = 0;
  for (NetLinkId l : path) total += links_[l].latency_s;
  return total;
}

void NetworkModel::check_path(std::span<const NetLinkId> path) const {
  for (NetLinkId l : path) K3SIM_ASSERT(l < links_.size(), "flow path names an unknown link");
}

double NetworkModel::link_utilisation(NetLinkId link) const {
  const Seconds elapsed = sim_.now().seconds();
  if (elapsed <= 0) return 0.0;
  return std::clamp(link_bytes(link) / (links_[link].capacity_bytes_per_s * elapsed), 0.0, 1.0);
}

}  // namespace k3::net
