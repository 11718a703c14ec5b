#include "sim/net/network_model.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace k3::net {

NetworkModel::NetworkModel(engine::Simulator& sim, NetLinks links) : sim_(sim), links_(std::move(links)) {
  K3SIM_ASSERT(links_ != nullptr, "network without links");
}

std::uint32_t NetworkModel::slot(NetLinkId link) {
  if (link >= slots_.size()) slots_.resize(link + 1, kNoSlot);
  std::uint32_t& s = slots_[link];
  if (s == kNoSlot) {
    const NetLink& l = (*links_)[link];
    K3SIM_ASSERT(l.capacity_bytes_per_s > 0, "network link with non-positive capacity");
    K3SIM_ASSERT(l.latency_s >= 0, "network link with negative latency");
    s = static_cast<std::uint32_t>(slot_links_.size());
    slot_links_.push_back(link);
    finished_bytes_.push_back(0.0);
  }
  return s;
}

std::optional<std::uint32_t> NetworkModel::find_slot(NetLinkId link) const {
  if (link >= slots_.size() || slots_[link] == kNoSlot) return std::nullopt;
  return slots_[link];
}

Seconds NetworkModel::path_latency_s(std::span<const NetLinkId> path) const {
  Seconds total = 0;
  for (NetLinkId l : path) total += (*links_)[l].latency_s;
  return total;
}

void NetworkModel::check_path(std::span<const NetLinkId> path) const {
  for (NetLinkId l : path) K3SIM_ASSERT(l < links_->size(), "flow path names an unknown link");
}

double NetworkModel::link_utilisation(NetLinkId link) const {
  const Seconds elapsed = sim_.now().seconds();
  if (elapsed <= 0) return 0.0;
  return std::clamp(link_bytes(link) / ((*links_)[link].capacity_bytes_per_s * elapsed), 0.0, 1.0);
}

}  // namespace k3::net
