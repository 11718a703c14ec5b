#pragma once
// Runs a StepGraph in one engine run: a node starts when every node it depends on has ended; a compute node
// lasts its duration; a communication node starts its collectives on one network model shared by the whole
// graph, so that collectives running at the same time (a gradient bucket's reduce-scatter beside an activation
// send on the same NIC) share the links, and ends when they complete.
#include <cstdint>
#include <vector>

#include "core/units.hpp"
#include "sim/exec/pass_runner.hpp"
#include "sim/exec/replay_memo.hpp"
#include "sim/exec/step_graph.hpp"

namespace k3::exec {

struct GraphTimes {
  std::vector<core::SimTime> start, end;  // per node
  core::SimTime makespan;                 // the last node's end
  std::uint64_t events = 0;
  std::vector<LinkClassBytes> bytes;      // per node: what its collectives put on each link class
};

// Ring all-reduces, reduce-scatters and all-gathers (net::is_ring) run as one step of the ring carrying the bytes
// of all its steps (ring_by_step.hpp: every step moves the same chunk over the same links), so a ring of
// thousands of ranks costs its ranks in flows, not ranks x steps; the latency of the steps after the first
// (the longest route of a step, each) is added when its bytes are through. Alone on an idle network that is
// the ring's own time; beside other traffic the ring's bytes share the links with it.
// Throws core::InternalError naming the node when the graph cannot finish (a dependency cycle) or two nodes of
// one rank's stream overlap. `runner` gives the network (its model, links and topology); null for a graph
// without collectives. `gpu_sms` (0: not shared) are the SMs of each GPU: while communication nodes of a rank run,
// their kernels hold GraphNode::sms of them, and the rank's compute nodes drain their work at (SMs - held) / SMs.
GraphTimes run_step_graph(const StepGraph& graph, const PassRunner* runner, int gpu_sms = 0);

// What `spec` puts on each link class of `topology` when it runs (a ring: one step's transfers times its steps).
LinkClassBytes collective_link_bytes(const net::CollectiveSpec& spec, const topo::Topology& topology);

}  // namespace k3::exec
