#pragma once
// Congestion-aware analytical network (the closed form of ASTRA-sim's congestion-aware analytical backend):
// the flows started at one instant form a batch; each link of the batch carries the sum of their bytes,
// from when the first of them has paid its path latency, queued after what earlier batches left on it; a
// flow lands when the most loaded link on its path has drained (and no earlier than its latency plus its
// bytes over its bottleneck). No solver and no rate changes: one pass over the batch's paths and one
// heap entry per flow. A lone flow takes latency + bytes / bottleneck capacity (alpha-beta), a ring's
// disjoint steps reproduce the textbook formulas, and flows that share a link share its time, so an
// all-to-all that funnels through one NVLink or NIC is bounded by that link as in FlowNetwork.
// Where it differs from max-min sharing: every flow of a batch that crosses a link waits for the link's
// whole batch load (a small flow beside large ones lands with them), and a link's queue drains at full rate
// even when its flows are held back elsewhere; both bound the collective's last flow closely when the
// collective is symmetric, which tests/net/network_agreement_test.cpp checks against FlowNetwork.
#include <deque>
#include <memory>
#include <span>
#include <vector>

#include "sim/net/network_model.hpp"

namespace k3::net {

class AnalyticalNetwork final : public NetworkModel {
 public:
  AnalyticalNetwork(engine::Simulator& sim, NetLinks links);
  AnalyticalNetwork(engine::Simulator& sim, std::vector<NetLink> links)
      : AnalyticalNetwork(sim, std::make_shared<const std::vector<NetLink>>(std::move(links))) {}

  FlowId start_flow(std::span<const NetLinkId> path, Bytes bytes, FlowDone on_done) override;
  std::string_view name() const override { return "analytical"; }
  Bytes link_bytes(NetLinkId link) const override;

  SimTime next_event_time() override;
  void advance_to(SimTime now) override;

 private:
  struct Flow {
    std::uint64_t path_begin = 0;  // its slots in path_slots_
    std::uint32_t path_size = 0;
    Bytes size = 0;
    SimTime transfer_start;  // after latency
    SimTime finish;
    bool done = false;
    FlowDone on_done;
  };
  struct Pending {
    SimTime time;
    std::uint64_t flow;
  };
  static bool later(const Pending& a, const Pending& b) {
    return a.time > b.time || (a.time == b.time && a.flow > b.flow);
  }
  void queue_completion(std::uint64_t id);
  // Reserves the links for the flows started at this instant and schedules their completions.
  void settle_batch();

  std::span<const std::uint32_t> path_of(const Flow& f) const { return {path_slots_.data() + f.path_begin, f.path_size}; }

  // Indexed by FlowId. A deque, and the paths in one array: a plan search starts millions of flows here, and
  // a vector of flows with a vector each spent a tenth of the search reallocating and faulting pages in.
  std::deque<Flow> flows_;
  std::vector<std::uint32_t> path_slots_;
  std::vector<Pending> completions_;
  std::vector<std::uint64_t> running_;  // flows not yet done (and some done ones), for link_bytes
  std::size_t finished_in_running_ = 0;
  std::vector<std::uint64_t> batch_;    // started at the current instant, links not yet reserved
  std::vector<SimTime> link_free_;      // per slot: when the bytes reserved on it so far have drained
  std::vector<SimTime> batch_start_;    // per slot: when the batch's first flow on it has paid its latency
  std::vector<Bytes> batch_load_;       // per slot: bytes of the batch being settled
  std::vector<std::uint32_t> touched_;  // slots with batch_load_ > 0
};

// Registered in network_registry.cpp.
std::unique_ptr<NetworkModel> make_analytical_network(engine::Simulator& sim, NetLinks links);

}  // namespace k3::net
