#include "sim/net/collectives/ring_by_step.hpp"

#include "core/error.hpp"

namespace k3::net {

bool is_ring(const CollectiveSpec& spec) {
  const bool ring_op = spec.op == CollectiveOp::allreduce || spec.op == CollectiveOp::reducescatter ||
                       spec.op == CollectiveOp::allgather;
  // Host copies around it are not ring steps.
  return ring_op && spec.algorithm == CollectiveAlgorithm::ring && spec.ranks.size() >= 2 && spec.host_in_bytes <= 0 &&
         spec.host_out_bytes <= 0;
}

RingStep ring_step(const CollectiveSpec& spec, const topo::Topology& topology) {
  K3SIM_ASSERT(is_ring(spec), "ring_step of a collective that is not a ring");
  check_collective(spec, topology);
  const std::size_t n = spec.ranks.size();
  RingStep r;
  const int n_int = static_cast<int>(n);
  // The same chunk and step count as expand_collective's ring (collective_plan.cpp).
  r.steps = spec.op == CollectiveOp::allreduce ? 2 * (n_int - 1) : n_int - 1;
  r.plan.reported_bytes = spec.bytes;
  const core::Bytes chunk = spec.bytes / static_cast<double>(n);
  r.plan.transfers.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    r.plan.transfers.push_back(Transfer{spec.ranks[i], spec.ranks[(i + 1) % n], chunk, false, {}});
  }
  return r;
}

}  // namespace k3::net
