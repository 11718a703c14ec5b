#pragma once
// Runs collectives on a network model: expands each into a transfer DAG (collective_plan.hpp), starts a
// flow for every transfer whose dependencies are met, and reports time, algbw and busbw when the last one
// finishes. Any number of collectives may run at once; they contend for links in the network model.
#include <array>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "sim/engine/simulator.hpp"
#include "sim/net/collectives/collective_plan.hpp"
#include "sim/net/network_model.hpp"
#include "topologies/route_memo.hpp"

namespace k3::net {

using CollectiveId = std::uint64_t;
using CollectiveDone = std::function<void(const CollectiveResult&)>;

class CollectiveEngine {
 public:
  // The simulator, network and topology must outlive the engine; `network` must be built on `topology`'s
  // links (make_network in network_factory.hpp), so that topology LinkIds index network links.
  CollectiveEngine(engine::Simulator& sim, NetworkModel& network, const topo::Topology& topology);
  CollectiveEngine(const CollectiveEngine&) = delete;
  CollectiveEngine& operator=(const CollectiveEngine&) = delete;
  ~CollectiveEngine();

  // Starts at the simulator's current time. Throws core::InputError for a spec that does not fit.
  CollectiveId start(const CollectiveSpec& spec, CollectiveDone on_done);
  // Same, for a plan built (and possibly edited) by the caller.
  CollectiveId start(CollectivePlan plan, CollectiveOp op, std::size_t ranks, CollectiveDone on_done);
  std::size_t running() const { return running_.size(); }

 private:
  struct Running;
  void launch(Running& run, std::uint32_t transfer);
  void transfer_done(CollectiveId id, std::uint32_t transfer);
  void finish(CollectiveId id);

  engine::Simulator& sim_;
  NetworkModel& network_;
  const topo::Topology& topology_;
  topo::RouteMemo routes_;
  std::unordered_map<CollectiveId, std::unique_ptr<Running>> running_;
  CollectiveId next_id_ = 0;
  std::vector<topo::LinkId> path_;  // scratch: a path that is not a route alone (transfer_path)
};

}  // namespace k3::net
