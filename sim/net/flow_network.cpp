#include "sim/net/flow_network.hpp"

#include <algorithm>
#include <utility>

#include "core/error.hpp"

namespace k3::net {

FlowNetwork::FlowNetwork(engine::Simulator& sim, NetLinks links) : NetworkModel(sim, std::move(links)) {}

void FlowNetwork::schedule_completion(std::uint64_t id, SimTime when) {
  Flow& f = flows_[id];
  if (f.completion_queued) {
    completions_.update(f.completion, Pending{when, id});
  } else {
    f.completion = completions_.push(Pending{when, id});
    f.completion_queued = true;
  }
}

FlowId FlowNetwork::start_flow(std::span<const NetLinkId> path, Bytes bytes, FlowDone on_done) {
  check_path(path);
  K3SIM_ASSERT(bytes >= 0, "flow with negative size");
  const SimTime now = sim_.now();
  const FlowId id = flows_.size();
  Flow& f = flows_.emplace_back();
  f.path_begin = path_slots_.size();
  f.path_size = static_cast<std::uint32_t>(path.size());
  for (NetLinkId l : path) {
    path_slots_.push_back(slot(l));
    // Slots are numbered as the max-min system's links: a new slot is its next link.
    if (path_slots_.back() == system_.link_count()) system_.add_link(slot_link(path_slots_.back()).capacity_bytes_per_s);
  }
  f.size = bytes;
  f.remaining = bytes;
  f.last_update = now;
  f.on_done = std::move(on_done);
  ++active_flows_;
  const SimTime latency = SimTime::from_seconds(path_latency_s(path));
  if (path.empty() || bytes <= 0) {
    // Nothing to share: the flow completes when its latency has elapsed.
    f.state = State::transferring;
    schedule_completion(id, now + latency);
  } else if (latency > SimTime::zero()) {
    activations_.push_back(Pending{now + latency, id});
    std::push_heap(activations_.begin(), activations_.end(), Later{});
  } else {
    activate(id, now);
  }
  return id;
}

void FlowNetwork::activate(std::uint64_t id, SimTime now) {
  Flow& f = flows_[id];
  f.state = State::transferring;
  f.last_update = now;
  f.rate = 0;
  f.var = system_.add_variable(path_of(f));
  if (var_to_flow_.size() <= f.var) var_to_flow_.resize(f.var + 1);
  var_to_flow_[f.var] = id;
}

SimTime FlowNetwork::next_event_time() {
  if (system_.dirty()) return sim_.now();
  SimTime t = SimTime::max();
  if (!activations_.empty()) t = activations_.front().time;
  if (!completions_.empty()) t = std::min(t, completions_.top().time);
  return t;
}

void FlowNetwork::finish(std::uint64_t id) {
  Flow& f = flows_[id];
  if (f.path_size > 0 && f.size > 0) system_.remove_variable(f.var);
  for (std::uint32_t l : path_of(f)) finished_bytes_[l] += f.size;
  f.state = State::finished;
  f.remaining = 0;
  f.rate = 0;
  --active_flows_;
  finished_now_.push_back(id);
}

void FlowNetwork::reschedule(std::uint64_t id, SimTime now) {
  Flow& f = flows_[id];
  const BytesPerSec new_rate = system_.rate(f.var);
  f.remaining = std::max(0.0, f.remaining - f.rate * (now - f.last_update).seconds());
  f.last_update = now;
  f.rate = new_rate;
  schedule_completion(id, now + SimTime::from_seconds(f.remaining / f.rate));
}

void FlowNetwork::advance_to(SimTime now) {
  bool changed = false;
  while (!activations_.empty() && activations_.front().time <= now) {
    const std::uint64_t id = activations_.front().flow;
    std::pop_heap(activations_.begin(), activations_.end(), Later{});
    activations_.pop_back();
    activate(id, now);
    changed = true;
  }
  while (!completions_.empty() && completions_.top().time <= now) {
    const std::uint64_t id = completions_.top().flow;
    completions_.pop();
    flows_[id].completion_queued = false;
    finish(id);
    changed = true;
  }
  if (changed) {
    // Callbacks first: flows they start at this instant join the same solve. The solve itself waits for
    // the next call at this instant (next_event_time() says now while dirty), after the queue's events at
    // this instant, which may start flows too.
    std::vector<std::uint64_t> done;
    done.swap(finished_now_);
    std::sort(done.begin(), done.end());
    for (std::uint64_t id : done) {
      FlowDone callback = std::move(flows_[id].on_done);
      if (callback) callback(id, now);
    }
    return;
  }
  if (system_.dirty()) {
    const auto& rate_changes = system_.solve();
    if (system_.last_component_variables() > 0) ++solves_;
    for (MaxMinVariable v : rate_changes) reschedule(var_to_flow_[v], now);
  }
}

BytesPerSec FlowNetwork::flow_rate(FlowId id) const {
  K3SIM_ASSERT(id < flows_.size(), "unknown flow");
  return flows_[id].state == State::transferring ? flows_[id].rate : 0.0;
}

Bytes FlowNetwork::link_bytes(NetLinkId link) const {
  K3SIM_ASSERT(link < links_->size(), "unknown link");
  const auto s = find_slot(link);
  if (!s) return 0;
  Bytes total = finished_bytes_[*s];
  const SimTime now = sim_.now();
  system_.for_each_variable_on(*s, [&](MaxMinVariable v) {
    const Flow& f = flows_[var_to_flow_[v]];
    const Bytes remaining = std::max(0.0, f.remaining - f.rate * (now - f.last_update).seconds());
    total += f.size - remaining;
  });
  return total;
}

std::unique_ptr<NetworkModel> make_flow_network(engine::Simulator& sim, NetLinks links) {
  return std::make_unique<FlowNetwork>(sim, std::move(links));
}

}  // namespace k3::net
