#pragma once
// Alpha-beta network without contention: a flow takes its path latency (alpha) plus bytes over the
// smallest capacity on its path (beta). Collectives expanded into flows on this model reproduce the
// textbook alpha-beta formulas (ring all-reduce = 2(n-1) alpha + 2(n-1)/n S/B). Cheap: no solver, one
// heap entry per flow. Agrees with FlowNetwork whenever no two flows share a link at the same time.
#include <memory>
#include <vector>

#include "sim/net/network_model.hpp"

namespace k3::net {

class AnalyticalNetwork final : public NetworkModel {
 public:
  AnalyticalNetwork(engine::Simulator& sim, std::vector<NetLink> links);

  FlowId start_flow(std::span<const NetLinkId> path, Bytes bytes, FlowDone on_done) override;
  std::string_view name() const override { return "analytical"; }
  Bytes link_bytes(NetLinkId link) const override;

  SimTime next_event_time() override;
  void advance_to(SimTime now) override;

 private:
  struct Flow {
    std::vector<NetLinkId> path;
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
  std::vector<Flow> flows_;
  std::vector<Pending> completions_;
  std::vector<std::uint64_t> running_;  // flows not yet done (and some done ones), for link_bytes
  std::size_t finished_in_running_ = 0;
};

// Registered in network_registry.cpp.
std::unique_ptr<NetworkModel> make_analytical_network(engine::Simulator& sim, std::vector<NetLink> links);

}  // namespace k3::net
