#include "sim/net/collective_spec.hpp"

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

std::string_view to_string(CollectiveAlgorithm algorithm) {
  switch (algorithm) {
    case CollectiveAlgorithm::ring: return "ring";
    case CollectiveAlgorithm::hierarchical: return "hierarchical";
    case CollectiveAlgorithm::flat: return "flat";
    case CollectiveAlgorithm::deepep: return "deepep";
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
  for (auto a : {CollectiveAlgorithm::ring, CollectiveAlgorithm::hierarchical, CollectiveAlgorithm::flat,
                 CollectiveAlgorithm::deepep}) {
    if (to_string(a) == text) return a;
  }
  return std::nullopt;
}

double busbw_factor(CollectiveOp op, std::size_t ranks) {
  const double n = static_cast<double>(ranks);
  if (ranks == 0) return 0.0;
  switch (op) {
    case CollectiveOp::allreduce: return 2.0 * (n - 1.0) / n;
    case CollectiveOp::reducescatter:
    case CollectiveOp::allgather:
    case CollectiveOp::alltoall: return (n - 1.0) / n;
    case CollectiveOp::sendrecv: return 1.0;
  }
  return 1.0;
}

}  // namespace k3::net
