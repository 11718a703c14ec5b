#include "sim/net/flow_network.hpp"

#include <algorithm>
#include <utility>

#include "core/error.hpp"

namespace k3::net {

FlowNetwork::FlowNetwork(engine::Simulator& sim, NetLinks links) : NetworkModel(sim, std::move(links)) {}

FlowId FlowNetwork::start_flow(std::span<const NetLinkId> path, Bytes bytes, FlowDone on_done) {
  check_path(path);
  K3SIM_ASSERT(bytes >= 0, "flow with negative size");
  const SimTime now = sim_.now();
  const FlowId id = flows_.size();
  Flow& f = flows_.emplace_back();
  std::uint32_t* slots = path_space(path.size());
  f.path = slots;
  f.path_size = static_cast<std::uint32_t>(path.size());
  for (std::size_t i = 0; i < path.size(); ++i) {
    slots[i] = slot(path[i]);
    // Slots are numbered as the max-min system's links: a new slot is its next link.
    if (slots[i] == system_.link_count()) system_.add_link(slot_link(slots[i]).capacity_bytes_per_s);
  }
  f.size = bytes;
  f.on_done = std::move(on_done);
  ++active_flows_;
  const SimTime latency = SimTime::from_seconds(path_latency_s(path));
  if (path.empty() || bytes <= 0) {
    // Nothing to share: the flow completes when its latency has elapsed.
    f.state = State::bare;
    bare_completions_.push_back(Pending{now + latency, id});
    std::push_heap(bare_completions_.begin(), bare_completions_.end(), Later{});
  } else if (latency > SimTime::zero()) {
    activations_.push_back(Pending{now + latency, id});
    std::push_heap(activations_.begin(), activations_.end(), Later{});
  } else {
    activate(id, now);
  }
  return id;
}

std::uint32_t* FlowNetwork::path_space(std::size_t n) {
  if (n == 0) return nullptr;
  if (n > kPathBlock) {
    // A path longer than a block (none of a real fabric's): a block of its own, and the next path a new one.
    path_blocks_.push_back(std::make_unique<std::uint32_t[]>(n));
    path_block_used_ = kPathBlock;
    return path_blocks_.back().get();
  }
  if (path_block_used_ + n > kPathBlock) {
    path_blocks_.push_back(std::make_unique_for_overwrite<std::uint32_t[]>(kPathBlock));
    path_block_used_ = 0;
  }
  std::uint32_t* out = path_blocks_.back().get() + path_block_used_;
  path_block_used_ += n;
  return out;
}

void FlowNetwork::activate(std::uint64_t id, SimTime now) {
  Flow& f = flows_[id];
  f.state = State::joining;
  f.var = system_.add_variable(path_of(f));
  if (var_to_flow_.size() <= f.var) var_to_flow_.resize(f.var + 1);
  var_to_flow_[f.var] = id;
  const MaxMinRoute route = system_.route_of(f.var);
  if (routes_.size() <= route) routes_.resize(route + 1);
  Route& r = routes_[route];
  if (r.flows == 0) {
    // A route the max-min system (re)created, maybe under a reused id: a fresh clock, timed by the next solve.
    K3SIM_ASSERT(r.queue.empty() && !r.completion_queued, "a flow route was reused while busy");
    r.service_bytes = 0;
    r.level = 0;
    r.last_update = now;
  }
  ++r.flows;
  joining_.push_back(id);
}

SimTime FlowNetwork::next_event_time() {
  if (system_.dirty()) return sim_.now();
  SimTime t = SimTime::max();
  if (!activations_.empty()) t = activations_.front().time;
  if (!bare_completions_.empty()) t = std::min(t, bare_completions_.front().time);
  if (!completions_.empty()) t = std::min(t, completions_.top().time);
  return t;
}

void FlowNetwork::advance_clock(Route& r, SimTime now) const {
  r.service_bytes += r.level * (now - r.last_update).seconds();
  r.last_update = now;
}

SimTime FlowNetwork::head_completion(const Route& r) const {
  const Bytes remaining = std::max(0.0, r.queue.front().finish_service_bytes - r.service_bytes);
  return r.last_update + SimTime::from_seconds(remaining / r.level);
}

void FlowNetwork::retime(MaxMinRoute route) {
  Route& r = routes_[route];
  if (r.queue.empty()) {
    if (r.completion_queued) completions_.erase(r.completion);
    r.completion_queued = false;
    return;
  }
  const Pending entry{head_completion(r), route};
  if (r.completion_queued) {
    completions_.update(r.completion, entry);
  } else {
    r.completion = completions_.push(entry);
    r.completion_queued = true;
  }
}

void FlowNetwork::pop_landed(MaxMinRoute route, SimTime now) {
  Route& r = routes_[route];
  // Every flow whose last byte lands by now, to the picosecond as its own completion would have been rounded.
  while (!r.queue.empty() && head_completion(r) <= now) {
    std::pop_heap(r.queue.begin(), r.queue.end(), QueuedLater{});
    finished_now_.push_back(r.queue.back().flow);
    r.queue.pop_back();
  }
  retime(route);
}

void FlowNetwork::finish(std::uint64_t id) {
  Flow& f = flows_[id];
  if (f.state == State::queued) {
    const MaxMinRoute route = system_.route_of(f.var);
    system_.remove_variable(f.var);
    Route& r = routes_[route];
    // The max-min system drops the route with its last variable, and may hand its id to a new one.
    if (--r.flows == 0) {
      K3SIM_ASSERT(r.queue.empty() && !r.completion_queued, "an emptied flow route is still queued");
      r.service_bytes = 0;
      r.level = 0;
    }
  }
  for (std::uint32_t l : path_of(f)) finished_bytes_[l] += f.size;
  f.state = State::finished;
  --active_flows_;
}

void FlowNetwork::solve(SimTime now) {
  const auto& changed = system_.solve_routes();
  if (system_.last_component_variables() > 0) ++solves_;
  ++solve_mark_;
  retimed_.clear();
  for (MaxMinRoute route : changed) {
    Route& r = routes_[route];
    advance_clock(r, now);
    r.level = system_.level(route);
    r.mark = solve_mark_;
    retimed_.push_back(route);
  }
  // Queued at the clock read now, without advancing it: the route's other flows keep the time base they were
  // timed from.
  for (std::uint64_t id : joining_) {
    Flow& f = flows_[id];
    const MaxMinRoute route = system_.route_of(f.var);
    Route& r = routes_[route];
    f.finish_service_bytes = r.service_bytes + r.level * (now - r.last_update).seconds() + f.size;
    f.state = State::queued;
    r.queue.push_back(Queued{f.finish_service_bytes, id});
    std::push_heap(r.queue.begin(), r.queue.end(), QueuedLater{});
    if (r.mark != solve_mark_) {
      r.mark = solve_mark_;
      retimed_.push_back(route);
    }
  }
  joining_.clear();
  for (MaxMinRoute route : retimed_) retime(route);
}

void FlowNetwork::advance_to(SimTime now) {
  bool changed = false;
  while (!activations_.empty() && activations_.front().time <= now) {
    const std::uint64_t id = activations_.front().id;
    std::pop_heap(activations_.begin(), activations_.end(), Later{});
    activations_.pop_back();
    activate(id, now);
    changed = true;
  }
  while (!bare_completions_.empty() && bare_completions_.front().time <= now) {
    finished_now_.push_back(bare_completions_.front().id);
    std::pop_heap(bare_completions_.begin(), bare_completions_.end(), Later{});
    bare_completions_.pop_back();
  }
  while (!completions_.empty() && completions_.top().time <= now) {
    pop_landed(static_cast<MaxMinRoute>(completions_.top().id), now);
  }
  if (!finished_now_.empty()) {
    // In flow order, as one heap of all flows popped them: the order routes leave the max-min system sets
    // the order of its sums.
    std::vector<std::uint64_t> done;
    done.swap(finished_now_);
    std::sort(done.begin(), done.end());
    for (std::uint64_t id : done) finish(id);
    // Callbacks next: flows they start at this instant join the same solve. The solve itself waits for the
    // next call at this instant (next_event_time() says now while dirty), after the queue's events at this
    // instant, which may start flows too.
    for (std::uint64_t id : done) {
      FlowDone callback = std::move(flows_[id].on_done);
      if (callback) callback(id, now);
    }
    return;
  }
  if (changed) return;
  if (system_.dirty()) solve(now);
}

BytesPerSec FlowNetwork::flow_rate(FlowId id) const {
  K3SIM_ASSERT(id < flows_.size(), "unknown flow");
  const Flow& f = flows_[id];
  return f.state == State::queued ? routes_[system_.route_of(f.var)].level : 0.0;
}

Bytes FlowNetwork::link_bytes(NetLinkId link) const {
  K3SIM_ASSERT(link < links_->size(), "unknown link");
  const auto s = find_slot(link);
  if (!s) return 0;
  Bytes total = finished_bytes_[*s];
  const SimTime now = sim_.now();
  system_.for_each_variable_on(*s, [&](MaxMinVariable v) {
    const Flow& f = flows_[var_to_flow_[v]];
    if (f.state != State::queued) return;  // joining: no byte moved before its first solve
    const Route& r = routes_[system_.route_of(v)];
    const Bytes service_bytes = r.service_bytes + r.level * (now - r.last_update).seconds();
    total += f.size - std::max(0.0, f.finish_service_bytes - service_bytes);
  });
  return total;
}

std::unique_ptr<NetworkModel> make_flow_network(engine::Simulator& sim, NetLinks links) {
  return std::make_unique<FlowNetwork>(sim, std::move(links));
}

}  // namespace k3::net
