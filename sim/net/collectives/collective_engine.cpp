#include "sim/net/collectives/collective_engine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "sim/net/network_factory.hpp"

namespace k3::net {

struct CollectiveEngine::Running {
  CollectiveId id = 0;
  CollectivePlan plan;
  CollectiveOp op = CollectiveOp::allreduce;
  std::size_t ranks = 0;
  CollectiveDone on_done;
  SimTime start;
  std::vector<std::uint32_t> waiting;  // unmet dependencies per transfer
  // Transfer t's successors are successors[successor_begin[t] .. successor_begin[t + 1]).
  std::vector<std::uint32_t> successor_begin;
  std::vector<std::uint32_t> successors;
  std::size_t remaining = 0;
  // Conservation check: what the plan's flows put on the network must arrive before the collective ends.
  core::Bytes bytes_sent = 0;
  core::Bytes bytes_received = 0;
};

CollectiveEngine::CollectiveEngine(engine::Simulator& sim, NetworkModel& network, const topo::Topology& topology)
    : sim_(sim), network_(network), topology_(topology), routes_(topology) {
  K3SIM_ASSERT(network.links().size() == net_link_count(topology),
               "collective engine: the network was not built on this topology's links (make_net_links)");
}

CollectiveEngine::~CollectiveEngine() = default;

CollectiveId CollectiveEngine::start(const CollectiveSpec& spec, CollectiveDone on_done) {
  return start(expand_collective(spec, topology_), spec.op, spec.ranks.size(), std::move(on_done));
}

CollectiveId CollectiveEngine::start(CollectivePlan plan, CollectiveOp op, std::size_t ranks, CollectiveDone on_done) {
  const CollectiveId id = next_id_++;
  auto run = std::make_unique<Running>();
  run->id = id;
  run->op = op;
  run->ranks = ranks;
  run->on_done = std::move(on_done);
  run->start = sim_.now();
  const std::size_t n = plan.transfers.size();
  // Filled locally and moved in: GCC 12 reports a false null dereference for resize() through run->.
  std::vector<std::uint32_t> waiting(n, 0u);
  std::vector<std::uint32_t> successor_begin(n + 1, 0u);
  for (std::uint32_t t = 0; t < n; ++t) {
    for (std::uint32_t before : plan.transfers[t].after) {
      K3SIM_ASSERT(before < t, "collective plan dependency points forward");
      ++successor_begin[before + 1];
    }
    waiting[t] = static_cast<std::uint32_t>(plan.transfers[t].after.size());
  }
  for (std::size_t t = 0; t < n; ++t) successor_begin[t + 1] += successor_begin[t];
  std::vector<std::uint32_t> successors(successor_begin[n]);
  std::vector<std::uint32_t> next_slot(successor_begin.begin(), successor_begin.end() - 1);
  for (std::uint32_t t = 0; t < n; ++t) {
    for (std::uint32_t before : plan.transfers[t].after) successors[next_slot[before]++] = t;
  }
  run->waiting = std::move(waiting);
  run->successor_begin = std::move(successor_begin);
  run->successors = std::move(successors);
  run->remaining = n;
  run->plan = std::move(plan);
  Running& r = *run;
  running_.emplace(id, std::move(run));
  if (n == 0) {
    // Nothing to move (one rank, or zero bytes everywhere): completes at this instant, after the caller
    // has its id.
    sim_.schedule_after(SimTime::zero(), [this, id] { finish(id); });
    return id;
  }
  for (std::uint32_t t = 0; t < n; ++t)
    if (r.waiting[t] == 0) launch(r, t);
  return id;
}

void CollectiveEngine::launch(Running& run, std::uint32_t t) {
  const Transfer& tr = run.plan.transfers[t];
  const CollectiveId id = run.id;
  if (tr.barrier) {
    // Completes at this instant, through the queue so that no completion nests inside another.
    sim_.schedule_after(SimTime::zero(), [this, id, t] { transfer_done(id, t); });
    return;
  }
  run.bytes_sent += tr.bytes;
  const auto path = transfer_path(tr, routes_.route(tr.src, tr.dst), topology_, path_);
  // this and one word fit std::function's local buffer (two pointers in libstdc++): with the id and the index
  // apart the capture took 24 bytes and each flow's callback was a heap allocation.
  K3SIM_ASSERT(id <= std::numeric_limits<std::uint32_t>::max(), "collective id too large for a flow callback");
  const std::uint64_t id_and_transfer = id << 32 | t;
  const auto done = [this, id_and_transfer](FlowId, SimTime) {
    transfer_done(id_and_transfer >> 32, static_cast<std::uint32_t>(id_and_transfer));
  };
  static_assert(sizeof(done) <= 2 * sizeof(void*));
  network_.start_flow(path, tr.bytes, done);
}

void CollectiveEngine::transfer_done(CollectiveId id, std::uint32_t t) {
  auto it = running_.find(id);
  K3SIM_ASSERT(it != running_.end(), "transfer finished for an unknown collective");
  Running& run = *it->second;
  K3SIM_ASSERT(run.remaining > 0, "a collective transfer finished twice");
  const Transfer& tr = run.plan.transfers[t];
  if (!tr.barrier) run.bytes_received += tr.bytes;
  --run.remaining;
  for (std::uint32_t s = run.successor_begin[t]; s < run.successor_begin[t + 1]; ++s) {
    const std::uint32_t next = run.successors[s];
    if (--run.waiting[next] == 0) launch(run, next);
  }
  if (run.remaining == 0) finish(id);
}

void CollectiveEngine::finish(CollectiveId id) {
  auto it = running_.find(id);
  K3SIM_ASSERT(it != running_.end(), "finishing an unknown collective");
  std::unique_ptr<Running> run = std::move(it->second);
  running_.erase(it);
  K3SIM_ASSERT(run->remaining == 0, "a collective finished with transfers outstanding");
  // Bytes are doubles summed in launch and in completion order: equal up to rounding.
  K3SIM_ASSERT(std::abs(run->bytes_sent - run->bytes_received) <= 1e-9 * std::max(1.0, run->bytes_sent),
               "a collective's bytes sent differ from its bytes received");
  CollectiveResult result;
  result.op = run->op;
  result.start = run->start;
  result.finish = sim_.now();
  result.time_s = (result.finish - result.start).seconds();
  result.bytes = run->plan.reported_bytes;
  result.flows = run->plan.flow_count();
  if (result.time_s > 0) {
    result.algbw_bytes_per_s = result.bytes / result.time_s;
    result.busbw_bytes_per_s = result.algbw_bytes_per_s * busbw_factor(run->op, run->ranks);
  }
  if (run->on_done) run->on_done(result);
}

}  // namespace k3::net
