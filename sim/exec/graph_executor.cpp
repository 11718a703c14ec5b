#include "sim/exec/graph_executor.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"
#include "sim/net/collectives/collective_engine.hpp"
#include "sim/net/collectives/ring_by_step.hpp"

namespace k3::exec {

namespace {

using core::SimTime;

// What one collective of a node runs on the network: its transfer plan, the time to wait after it, and what it
// puts on each link class (routed once, here).
struct PlannedCollective {
  net::CollectivePlan plan;
  SimTime trailing_latency;
  LinkClassBytes bytes;
};

// `links` null: no latency (only the plan and its bytes are wanted).
PlannedCollective plan_of(const net::CollectiveSpec& spec, const topo::Topology& topology, const net::NetLinks* links) {
  PlannedCollective out;
  int steps = 1;
  if (net::is_ring(spec)) {
    auto ring = net::ring_step(spec, topology);
    steps = ring.steps;
    out.plan = std::move(ring.plan);
  } else {
    out.plan = net::expand_collective(spec, topology);
  }
  const auto& topo_links = topology.links();
  core::Seconds step_latency = 0;
  for (auto& t : out.plan.transfers) {
    if (t.barrier) continue;
    t.bytes *= steps;
    if (t.host != net::HostCopy::none) {  // one port of the GPU's own, no latency (make_net_links)
      out.bytes.host += t.bytes;
      continue;
    }
    core::Seconds latency = 0;
    for (topo::LinkId l : topology.route(t.src, t.dst)) {
      if (links != nullptr) latency += (**links)[l].latency_s;
      out.bytes.bytes[static_cast<std::size_t>(topo_links[l].link_class)] += t.bytes;
    }
    step_latency = std::max(step_latency, latency);
  }
  if (steps > 1) out.trailing_latency = SimTime::from_seconds(step_latency * (steps - 1));
  return out;
}

class GraphRun {
 public:
  GraphRun(const StepGraph& g, const PassRunner* runner, int gpu_sms)
      : g_(g), runner_(runner), gpu_sms_(gpu_sms), waiting_(g.nodes.size(), 0), dependents_(g.nodes.size()) {
    if (runner != nullptr) {
      network_ = net::make_network(*runner->config().network, sim_, runner->links());
      sim_.add_model(*network_);
      engine_.emplace(sim_, *network_, runner->topology());
    }
    out_.start.assign(g.nodes.size(), SimTime::max());
    out_.end.assign(g.nodes.size(), SimTime::max());
    out_.bytes.resize(g.nodes.size());
    int ranks = 0;
    for (const auto& n : g.nodes) ranks = std::max(ranks, n.rank + 1);
    gpus_.resize(static_cast<std::size_t>(ranks));
    for (GraphNodeId n = 0; n < g.nodes.size(); ++n) {
      K3SIM_ASSERT(runner != nullptr || g.nodes[n].collectives.empty(), "a step graph with collectives needs a network");
      for (GraphNodeId d : g.nodes[n].deps) {
        K3SIM_ASSERT(d < g.nodes.size(), "a graph node depends on a node the graph does not have");
        ++waiting_[n];
        dependents_[d].push_back(n);
      }
    }
  }

  GraphTimes run() {
    for (GraphNodeId n = 0; n < g_.nodes.size(); ++n) {
      if (waiting_[n] == 0) sim_.schedule_at(SimTime::zero(), [this, n] { start(n); });
    }
    out_.events = sim_.run();
    for (GraphNodeId n = 0; n < g_.nodes.size(); ++n) {
      if (out_.end[n] == SimTime::max()) {
        throw core::InternalError(fmt::format("step graph node {} '{}' of rank {} never ran (a dependency cycle)", n,
                                              g_.nodes[n].name, g_.nodes[n].rank));
      }
      out_.makespan = std::max(out_.makespan, out_.end[n]);
    }
    check_streams();
    check_links();
    return std::move(out_);
  }

 private:
  void start(GraphNodeId n) {
    const auto& node = g_.nodes[n];
    out_.start[n] = sim_.now();
    if (node.kind == GraphNodeKind::compute) {
      run_compute(n);
      return;
    }
    hold_sms(node.rank, node.sms);
    if (node.collectives.empty()) {
      sim_.schedule_after(node.duration, [this, n] { end(n); });
      return;
    }
    auto left = std::make_shared<std::size_t>(node.collectives.size());
    auto trailing = std::make_shared<SimTime>(SimTime::zero());
    for (const auto& spec : node.collectives) {
      auto planned = plan_of(spec, runner_->topology(), &runner_->links());
      out_.bytes[n].add(planned.bytes);
      *trailing = std::max(*trailing, planned.trailing_latency);
      engine_->start(std::move(planned.plan), spec.op, spec.ranks.size(),
                    [this, n, left, trailing](const net::CollectiveResult&) {
                      if (--*left > 0) return;
                      sim_.schedule_after(*trailing + g_.nodes[n].duration, [this, n] { end(n); });
                    });
    }
  }

  void end(GraphNodeId n) {
    out_.end[n] = sim_.now();
    const auto& node = g_.nodes[n];
    if (node.kind == GraphNodeKind::compute) {
      auto& running = gpus_[static_cast<std::size_t>(node.rank)].running;
      running.erase(std::find_if(running.begin(), running.end(), [n](const Running& r) { return r.node == n; }));
    } else {
      hold_sms(node.rank, -node.sms);
    }
    for (GraphNodeId d : dependents_[n]) {
      if (--waiting_[d] == 0) start(d);
    }
  }

  // A GPU's SMs shared between its compute and the communication kernels beside it: compute drains its nominal
  // work at (SMs - held) / SMs while communication kernels hold SMs (at least one SM left to it).
  struct Running {
    GraphNodeId node;
    SimTime left;   // nominal work still to run
    SimTime since;  // when `left` was last brought up to date
    engine::EventHandle end;
  };
  struct GpuShare {
    int held = 0;
    std::vector<Running> running;
  };
  double rate(int rank) const {
    const int held = gpus_[static_cast<std::size_t>(rank)].held;
    if (gpu_sms_ <= 0 || held <= 0) return 1.0;
    return static_cast<double>(gpu_sms_ - std::min(held, gpu_sms_ - 1)) / gpu_sms_;
  }
  SimTime wall(SimTime nominal, double r) const { return r == 1.0 ? nominal : SimTime::from_seconds(nominal.seconds() / r); }

  void run_compute(GraphNodeId n) {
    auto& gpu = gpus_[static_cast<std::size_t>(g_.nodes[n].rank)];
    Running r{n, g_.nodes[n].duration, sim_.now(), {}};
    r.end = sim_.schedule_after(wall(r.left, rate(g_.nodes[n].rank)), [this, n] { end(n); });
    gpu.running.push_back(r);
  }

  void hold_sms(int rank, int change) {
    if (change == 0 || gpu_sms_ <= 0) return;
    const double before = rate(rank);
    auto& gpu = gpus_[static_cast<std::size_t>(rank)];
    gpu.held += change;
    const double after = rate(rank);
    if (after == before) return;
    for (auto& r : gpu.running) {
      const SimTime drained = std::min(r.left, SimTime::from_seconds((sim_.now() - r.since).seconds() * before));
      r.left -= drained;
      r.since = sim_.now();
      sim_.cancel(r.end);
      const GraphNodeId n = r.node;
      r.end = sim_.schedule_after(wall(r.left, after), [this, n] { end(n); });
    }
  }

  // One node at a time on each stream of each rank: a graph whose stream order is missing a dependency would
  // run two kernels of one stream side by side, a time no GPU gives.
  void check_streams() const {
    std::map<std::pair<int, std::string>, std::vector<GraphNodeId>> by_stream;
    for (GraphNodeId n = 0; n < g_.nodes.size(); ++n) by_stream[{g_.nodes[n].rank, g_.nodes[n].stream}].push_back(n);
    for (auto& [stream, nodes] : by_stream) {
      std::sort(nodes.begin(), nodes.end(), [&](GraphNodeId a, GraphNodeId b) {
        return std::pair(out_.start[a], out_.end[a]) < std::pair(out_.start[b], out_.end[b]);
      });
      for (std::size_t i = 1; i < nodes.size(); ++i) {
        if (out_.start[nodes[i]] < out_.end[nodes[i - 1]]) {
          throw core::InternalError(fmt::format("step graph nodes '{}' and '{}' overlap on stream {} of rank {}",
                                                g_.nodes[nodes[i - 1]].name, g_.nodes[nodes[i]].name, stream.second,
                                                stream.first));
        }
      }
    }
  }

  // No link carried more than its capacity over the run: more would mean a collective was timed as if it had a
  // link to itself while another used it.
  void check_links() const {
    if (!network_) return;
    const auto& links = network_->links();
    for (net::NetLinkId l : network_->used_links()) {
      const double most = links[l].capacity_bytes_per_s * out_.makespan.seconds();
      if (network_->link_bytes(l) > most * (1 + 1e-9)) {
        throw core::InternalError(fmt::format("step graph: link {} carried {:.6g} B in {:.6g} s, more than its {:.6g} B/s allow",
                                              l, network_->link_bytes(l), out_.makespan.seconds(),
                                              links[l].capacity_bytes_per_s));
      }
    }
  }

  const StepGraph& g_;
  const PassRunner* runner_;
  int gpu_sms_;
  std::vector<GpuShare> gpus_;  // per rank
  engine::Simulator sim_;
  std::unique_ptr<net::NetworkModel> network_;
  std::optional<net::CollectiveEngine> engine_;
  std::vector<std::size_t> waiting_;
  std::vector<std::vector<GraphNodeId>> dependents_;
  GraphTimes out_;
};

}  // namespace

GraphTimes run_step_graph(const StepGraph& graph, const PassRunner* runner, int gpu_sms) {
  return GraphRun(graph, runner, gpu_sms).run();
}

LinkClassBytes collective_link_bytes(const net::CollectiveSpec& spec, const topo::Topology& topology) {
  return plan_of(spec, topology, nullptr).bytes;
}

}  // namespace k3::exec
