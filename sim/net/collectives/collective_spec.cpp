#include "sim/net/collectives/collective_spec.hpp"

namespace k3::net {

std::string_view to_string(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::allreduce: return "allreduce";
    case CollectiveOp::reducescatter: return "reducescatter";
    case CollectiveOp::allgather: return "allgather";
    case CollectiveOp::alltoall: return "alltoall";
    case CollectiveOp::sendrecv: return "sendrecv";
  }
  return "?";
}

namespace {
constexpr CollectiveAlgorithmEntry kAlgorithms[] = {
    {"ring", "ring over the ranks in order: all-reduce, reduce-scatter, all-gather (NCCL's ring)",
     CollectiveAlgorithm::ring},
    {"hierarchical", "all-reduce as reduce-scatter in each node, all-reduce across nodes, all-gather in each node",
     CollectiveAlgorithm::hierarchical},
    {"flat", "all-to-all as one direct transfer between every pair of ranks", CollectiveAlgorithm::flat},
    {"deepep", "all-to-all as DeepEP's normal kernels: one deduplicated RDMA copy per node, then NVLink forwarding",
     CollectiveAlgorithm::deepep},
    {"deepep-ll", "all-to-all as DeepEP's low-latency kernels: every token copy written straight to its expert's GPU "
                  "(NVLink in the node, RDMA across), no relay; a count atomic per peer after an RTT",
     CollectiveAlgorithm::deepep_ll},
};
}  // namespace

std::span<const CollectiveAlgorithmEntry> collective_algorithms() { return kAlgorithms; }

std::string_view to_string(CollectiveAlgorithm algorithm) {
  for (const auto& e : kAlgorithms) {
    if (e.algorithm == algorithm) return e.name;
  }
  return "?";
}

std::optional<CollectiveOp> parse_collective_op(std::string_view text) {
  for (auto op : {CollectiveOp::allreduce, CollectiveOp::reducescatter, CollectiveOp::allgather,
                  CollectiveOp::alltoall, CollectiveOp::sendrecv}) {
    if (to_string(op) == text) return op;
  }
  return std::nullopt;
}

std::optional<CollectiveAlgorithm> parse_collective_algorithm(std::string_view text) {
  for (const auto& e : kAlgorithms) {
    if (e.name == text) return e.algorithm;
  }
  return std::nullopt;
}

}  // namespace k3::net
