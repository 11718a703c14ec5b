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
  // latent: paying its path latency; bare: no link or no byte, landing when the latency ends; joining: in the
  // max-min system, queued on its route by the next solve; queued: on its route's clock.
  enum class State : std::uint8_t { latent, bare, joining, queued, finished };
  struct Pending {
    SimTime time;
    std::uint64_t id;  // a flow (activations_, bare_completions_) or a max-min route (completions_)
  };
  struct Later {
    bool operator()(const Pending& a, const Pending& b) const {
      return a.time > b.time || (a.time == b.time && a.id > b.id);
    }
  };
  // One entry per route with a flow in its queue, moved in place when the route's level or first flow
  // changes: a K3 pass re-solved each flow ~10 times, and one entry per flow made those moves a quarter of
  // the run.
  using CompletionHeap =
      boost::heap::d_ary_heap<Pending, boost::heap::arity<4>, boost::heap::mutable_<true>, boost::heap::compare<Later>>;
  struct Flow {
    const std::uint32_t* path = nullptr;  // its slots (the max-min system's links), in a block of path_blocks_
    std::uint32_t path_size = 0;
    Bytes size = 0;
    // Its route's service_bytes when its last byte lands (set when the solve after its activation queues it).
    Bytes finish_service_bytes = 0;
    MaxMinVariable var = 0;
    State state = State::latent;
    FlowDone on_done;
  };
  struct Queued {
    Bytes finish_service_bytes;
    std::uint64_t flow;
  };
  struct QueuedLater {
    bool operator()(const Queued& a, const Queued& b) const {
      return a.finish_service_bytes > b.finish_service_bytes ||
             (a.finish_service_bytes == b.finish_service_bytes && a.flow > b.flow);
    }
  };
  // A max-min route's virtual clock: every flow on it moves at its level (weights are all 1), so a flow's
  // remaining bytes are its finish service minus the clock, and a level change only advances the clock.
  struct Route {
    Bytes service_bytes = 0;      // bytes delivered per flow since the route was (re)created, at last_update
    BytesPerSec level = 0;        // per-flow rate since last_update (0 until its first solve)
    SimTime last_update;
    std::uint32_t flows = 0;      // its max-min variables (queued or waiting for the solve)
    std::uint64_t mark = 0;       // the solve that last re-timed it
    bool completion_queued = false;
    CompletionHeap::handle_type completion;
    std::vector<Queued> queue;    // heap (QueuedLater): its transferring flows by finish service
  };
  void activate(std::uint64_t flow, SimTime now);
  void finish(std::uint64_t flow);
  void solve(SimTime now);
  void advance_clock(Route& r, SimTime now) const;
  // When the route's first queued flow lands, its clock read at last_update.
  SimTime head_completion(const Route& r) const;
  // Moves, adds or drops the route's completions_ entry after its level or first flow changed.
  void retime(MaxMinRoute route);
  void pop_landed(MaxMinRoute route, SimTime now);

  MaxMinSystem system_;
  std::span<const std::uint32_t> path_of(const Flow& f) const { return {f.path, f.path_size}; }
  // Room for `n` slots that never moves.
  std::uint32_t* path_space(std::size_t n);

  // Indexed by FlowId (flows are never reused within a run). A deque, and the paths in blocks: a K3 pass starts
  // millions of flows, and a vector of flows with a vector each spent a tenth of the run reallocating.
  std::deque<Flow> flows_;
  // The flows' slot lists, in blocks that never move: one vector of them all was reallocated and copied as a
  // K3 pass's millions of flows arrived (2% of a replay, and as much again in page faults).
  static constexpr std::size_t kPathBlock = std::size_t{1} << 16;
  std::vector<std::unique_ptr<std::uint32_t[]>> path_blocks_;
  std::size_t path_block_used_ = kPathBlock;
  std::vector<std::uint64_t> var_to_flow_;  // max-min variable -> flow
  std::vector<Route> routes_;               // by max-min route id
  std::vector<Pending> activations_;        // heap (std::push_heap with Later): end of latency
  std::vector<Pending> bare_completions_;   // heap (Later): flows with no link or no byte, landing after latency
  CompletionHeap completions_;              // per route, its first flow's last byte
  std::vector<std::uint64_t> joining_;      // activated since the last solve, queued by the next
  std::vector<MaxMinRoute> retimed_;        // solve() scratch
  std::vector<std::uint64_t> finished_now_;
  std::uint64_t solves_ = 0;
  std::uint64_t solve_mark_ = 0;
};

// Registered in network_registry.cpp.
std::unique_ptr<NetworkModel> make_flow_network(engine::Simulator& sim, NetLinks links);

}  // namespace k3::net
