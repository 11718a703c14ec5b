#include "sim/net/analytical_network.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "core/error.hpp"

namespace k3::net {

AnalyticalNetwork::AnalyticalNetwork(engine::Simulator& sim, std::vector<NetLink> links)
    : NetworkModel(sim, std::move(links)) {}

FlowId AnalyticalNetwork::start_flow(std::span<const NetLinkId> path, Bytes bytes, FlowDone on_done) {
  check_path(path);
  K3SIM_ASSERT(bytes >= 0, "flow with negative size");
  const SimTime now = sim_.now();
  BytesPerSec bottleneck = std::numeric_limits<double>::infinity();
  for (NetLinkId l : path) bottleneck = std::min(bottleneck, links_[l].capacity_bytes_per_s);
  const FlowId id = flows_.size();
  Flow& f = flows_.emplace_back();
  f.path.assign(path.begin(), path.end());
  f.size = bytes;
  f.transfer_start = now + SimTime::from_seconds(path_latency_s(path));
  f.finish = f.transfer_start;
  if (!path.empty() && bytes > 0) f.finish += SimTime::from_seconds(bytes / bottleneck);
  f.on_done = std::move(on_done);
  completions_.push_back(Pending{f.finish, id});
  std::push_heap(completions_.begin(), completions_.end(), later);
  running_.push_back(id);
  ++active_flows_;
  return id;
}

SimTime AnalyticalNetwork::next_event_time() {
  return completions_.empty() ? SimTime::max() : completions_.front().time;
}

void AnalyticalNetwork::advance_to(SimTime now) {
  std::vector<std::uint64_t> done;
  while (!completions_.empty() && completions_.front().time <= now) {
    done.push_back(completions_.front().flow);
    std::pop_heap(completions_.begin(), completions_.end(), later);
    completions_.pop_back();
  }
  for (std::uint64_t id : done) {
    Flow& f = flows_[id];
    f.done = true;
    for (NetLinkId l : f.path) finished_bytes_[l] += f.size;
    --active_flows_;
  }
  // Compact lazily so that a long run of single completions stays linear overall.
  finished_in_running_ += done.size();
  if (2 * finished_in_running_ > running_.size()) {
    std::erase_if(running_, [&](std::uint64_t id) { return flows_[id].done; });
    finished_in_running_ = 0;
  }
  for (std::uint64_t id : done) {
    FlowDone callback = std::move(flows_[id].on_done);
    if (callback) callback(id, now);
  }
}

Bytes AnalyticalNetwork::link_bytes(NetLinkId link) const {
  K3SIM_ASSERT(link < links_.size(), "unknown link");
  Bytes total = finished_bytes_[link];
  const SimTime now = sim_.now();
  for (std::uint64_t id : running_) {
    const Flow& f = flows_[id];
    if (f.done || now <= f.transfer_start || std::find(f.path.begin(), f.path.end(), link) == f.path.end()) continue;
    const double span = (f.finish - f.transfer_start).seconds();
    total += span > 0 ? f.size * std::min(1.0, (now - f.transfer_start).seconds() / span) : f.size;
  }
  return total;
}

std::unique_ptr<NetworkModel> make_analytical_network(engine::Simulator& sim, std::vector<NetLink> links) {
  return std::make_unique<AnalyticalNetwork>(sim, std::move(links));
}

}  // namespace k3::net
