#include "sim/net/analytical_network.hpp"

#include <algorithm>
#include <utility>

#include "core/error.hpp"

namespace k3::net {

AnalyticalNetwork::AnalyticalNetwork(engine::Simulator& sim, NetLinks links) : NetworkModel(sim, std::move(links)) {}

FlowId AnalyticalNetwork::start_flow(std::span<const NetLinkId> path, Bytes bytes, FlowDone on_done) {
  check_path(path);
  K3SIM_ASSERT(bytes >= 0, "flow with negative size");
  const SimTime now = sim_.now();
  const FlowId id = flows_.size();
  Flow& f = flows_.emplace_back();
  f.path_begin = path_slots_.size();
  f.path_size = static_cast<std::uint32_t>(path.size());
  for (NetLinkId l : path) path_slots_.push_back(slot(l));
  link_free_.resize(finished_bytes_.size(), SimTime::zero());
  batch_start_.resize(finished_bytes_.size(), SimTime::zero());
  batch_load_.resize(finished_bytes_.size(), 0.0);
  f.size = bytes;
  f.transfer_start = now + SimTime::from_seconds(path_latency_s(path));
  f.finish = f.transfer_start;
  f.on_done = std::move(on_done);
  running_.push_back(id);
  ++active_flows_;
  if (path.empty() || bytes <= 0) {
    queue_completion(id);  // nothing to share: done after its latency
  } else {
    batch_.push_back(id);
  }
  return id;
}

void AnalyticalNetwork::queue_completion(std::uint64_t id) {
  completions_.push_back(Pending{flows_[id].finish, id});
  std::push_heap(completions_.begin(), completions_.end(), later);
}

void AnalyticalNetwork::settle_batch() {
  // A link starts on the batch when its earliest flow has paid its latency.
  for (std::uint64_t id : batch_) {
    const Flow& f = flows_[id];
    for (std::uint32_t l : path_of(f)) {
      if (batch_load_[l] == 0) {
        touched_.push_back(l);
        batch_start_[l] = f.transfer_start;
      }
      batch_load_[l] += f.size;
      batch_start_[l] = std::min(batch_start_[l], f.transfer_start);
    }
  }
  for (std::uint32_t l : touched_) {
    link_free_[l] = std::max(link_free_[l], batch_start_[l]) +
                    SimTime::from_seconds(batch_load_[l] / slot_link(l).capacity_bytes_per_s);
    batch_load_[l] = 0;
  }
  touched_.clear();
  for (std::uint64_t id : batch_) {
    Flow& f = flows_[id];
    BytesPerSec bottleneck = slot_link(path_slots_[f.path_begin]).capacity_bytes_per_s;
    SimTime drained = f.transfer_start;
    for (std::uint32_t l : path_of(f)) {
      bottleneck = std::min(bottleneck, slot_link(l).capacity_bytes_per_s);
      drained = std::max(drained, link_free_[l]);
    }
    f.finish = std::max(drained, f.transfer_start + SimTime::from_seconds(f.size / bottleneck));
    queue_completion(id);
  }
  batch_.clear();
}

SimTime AnalyticalNetwork::next_event_time() {
  // Flows started at this instant are settled together once the instant's queue events have run.
  if (!batch_.empty()) return sim_.now();
  return completions_.empty() ? SimTime::max() : completions_.front().time;
}

void AnalyticalNetwork::advance_to(SimTime now) {
  if (!batch_.empty()) settle_batch();
  std::vector<std::uint64_t> done;
  while (!completions_.empty() && completions_.front().time <= now) {
    done.push_back(completions_.front().flow);
    std::pop_heap(completions_.begin(), completions_.end(), later);
    completions_.pop_back();
  }
  for (std::uint64_t id : done) {
    Flow& f = flows_[id];
    f.done = true;
    for (std::uint32_t l : path_of(f)) finished_bytes_[l] += f.size;
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
  K3SIM_ASSERT(link < links_->size(), "unknown link");
  const auto s = find_slot(link);
  if (!s) return 0;
  Bytes total = finished_bytes_[*s];
  const SimTime now = sim_.now();
  for (std::uint64_t id : running_) {
    const Flow& f = flows_[id];
    if (f.done || now <= f.transfer_start || std::ranges::find(path_of(f), *s) == path_of(f).end()) continue;
    const double span = (f.finish - f.transfer_start).seconds();
    total += span > 0 ? f.size * std::min(1.0, (now - f.transfer_start).seconds() / span) : f.size;
  }
  return total;
}

std::unique_ptr<NetworkModel> make_analytical_network(engine::Simulator& sim, NetLinks links) {
  return std::make_unique<AnalyticalNetwork>(sim, std::move(links));
}

}  // namespace k3::net
