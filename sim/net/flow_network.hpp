#pragma once
// Flow-level network: each flow waits its path latency, then shares link capacity with the other flows by
// max-min fairness; rates are re-solved whenever a flow starts or finishes, only in the connected component
// of the change. All flows that start or finish at one instant are settled by a single solve.
#include <boost/heap/d_ary_heap.hpp>

#include <deque>
#include <memory>
#include <span>
#include <vector>

#include "sim/net/maxmin.hpp"
#include "sim/net/network_model.hpp"

namespace k3::net {

class FlowNetwork final : public NetworkModel {
 public:
  FlowNetwork(engine::Simulator& sim, NetLinks links);
  FlowNetwork(engine::Simulator& sim, std::vector<NetLink> links)
      : FlowNetwork(sim, std::make_shared<const std::vector<NetLink>>(std::move(links))) {}

  FlowId start_flow(std::span<const NetLinkId> path, Bytes bytes, FlowDone on_done) override;
  std::string_view name() const override { return "flow"; }
  Bytes link_bytes(NetLinkId link) const override;

  SimTime next_event_time() override;
  void advance_to(SimTime now) override;

  // Current rate of a running flow in B/s (0 while it is still paying latency or when finished).
  BytesPerSec flow_rate(FlowId id) const;
  std::uint64_t solves() const { return solves_; }

 private:
  enum class State : std::uint8_t { latent, transferring, finished };
  struct Pending {
    SimTime time;
    std::uint64_t flow;
  };
  struct Later {
    bool operator()(const Pending& a, const Pending& b) const {
      return a.time > b.time || (a.time == b.time && a.flow > b.flow);
    }
  };
  // One entry per transferring flow, moved in place when its rate changes: a solve reschedules every
  // flow of the component, and a lazily invalidated heap grew by that much per solve (stale entries
  // were a fifth of a K3 step's run time).
  using CompletionHeap =
      boost::heap::d_ary_heap<Pending, boost::heap::arity<4>, boost::heap::mutable_<true>, boost::heap::compare<Later>>;
  struct Flow {
    std::uint64_t path_begin = 0;  // its slots (the max-min system's links) in path_slots_
    std::uint32_t path_size = 0;
    Bytes size = 0;
    Bytes remaining = 0;  // at last_update
    BytesPerSec rate = 0;
    SimTime last_update;
    MaxMinVariable var = 0;
    State state = State::latent;
    bool completion_queued = false;
    CompletionHeap::handle_type completion;
    FlowDone on_done;
  };
  void schedule_completion(std::uint64_t flow, SimTime when);
  void activate(std::uint64_t flow, SimTime now);
  void finish(std::uint64_t flow);
  void reschedule(std::uint64_t flow, SimTime now);

  MaxMinSystem system_;
  std::span<const std::uint32_t> path_of(const Flow& f) const { return {path_slots_.data() + f.path_begin, f.path_size}; }

  // Indexed by FlowId (flows are never reused within a run). A deque, and the paths in one array: a K3 pass
  // starts millions of flows, and a vector of flows with a vector each spent a tenth of the run reallocating.
  std::deque<Flow> flows_;
  std::vector<std::uint32_t> path_slots_;
  std::vector<std::uint64_t> var_to_flow_;  // max-min variable -> flow
  std::vector<Pending> activations_;        // heap (std::push_heap with Later): end of latency
  CompletionHeap completions_;              // last byte of each transferring flow
  std::vector<std::uint64_t> finished_now_;
  std::uint64_t solves_ = 0;
};

// Registered in network_registry.cpp.
std::unique_ptr<NetworkModel> make_flow_network(engine::Simulator& sim, NetLinks links);

}  // namespace k3::net
