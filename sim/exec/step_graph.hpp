#pragma once
// The step as an execution graph, one engine run for all of it (run_step_graph, graph_executor.hpp): every
// pipeline pass of every micro-batch, the activation sends between stages, the data-parallel reductions issued
// in buckets as the last backward passes produce the gradients, the optimizer update and the parameter
// all-gathers. Node kinds follow Chakra's execution traces (mlcommons/chakra et_def.proto) where they apply:
// COMP_NODE for GPU work of a known duration (a pass as its own engine run timed it), COMM_SEND_NODE for a
// transfer to another pipeline rank (its receiver depends on it directly), COMM_COLL_NODE for collectives.
// Stream order is a dependency like any other (Chakra's control dependencies), so the graph is a plain DAG.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/units.hpp"
#include "sim/net/collectives/collective_spec.hpp"

namespace k3::exec {

enum class GraphNodeKind : std::uint8_t { compute, send, collective };
std::string_view to_string(GraphNodeKind kind);  // "COMP_NODE", "COMM_SEND_NODE", "COMM_COLL_NODE"

using GraphNodeId = std::uint32_t;

struct GraphNode {
  GraphNodeKind kind = GraphNodeKind::compute;
  int rank = 0;           // the pipeline rank whose GPUs run it
  std::string stream;     // "compute", "p2p" or "dp": a GPU stream of the rank (one node at a time on each)
  std::string name;       // what it is, for traces ("F chunk 0 mb 3", "DP gradient reduce-scatter chunk 1 bucket 2")
  core::SimTime duration; // compute: its length; communication without collectives: a fixed transfer time
  // Started together on the network when the node starts; the node ends when the last completes, then waits
  // `duration` more (a ring run as one step of all its bytes pays the latency of its other steps there).
  std::vector<net::CollectiveSpec> collectives;
  // Communication: SMs of the rank's GPUs its kernels hold while it runs (NCCL's channels, one CTA each).
  int sms = 0;
  std::vector<GraphNodeId> deps;  // nodes that must end before this one starts
  std::string program;            // a pass node: which distinct pass it runs (its kernels: the export's "programs")
};

struct StepGraph {
  std::vector<GraphNode> nodes;

  GraphNodeId add(GraphNode node);
  // Splits a compute node into parts of `fractions` of its duration (summing to 1), run one after another:
  // the first takes the node's dependencies, the last keeps its id (what depended on the node still waits for
  // all of it). Returns the parts' ids in order, the last being `id`.
  std::vector<GraphNodeId> split(GraphNodeId id, std::span<const double> fractions);
};

// The graph as JSON (schema "k3sim-step-graph/1"): nodes in id order with kind, rank, stream, name, duration in
// integer picoseconds, collectives (op, algorithm, ranks, bytes) and deps; reloading it gives the same graph.
// Only collectives without byte matrices are written (the step graph's sends and rings have none).
nlohmann::json graph_to_json(const StepGraph& graph);
// Throws core::InputError naming `source` and the JSON pointer of the bad value: an unknown kind, op or
// algorithm, a dependency that is not a node, a negative duration.
StepGraph graph_from_json(const nlohmann::json& json, const std::string& source);

}  // namespace k3::exec
