#pragma once
// The collective operations and nccl-tests' bandwidth definitions (nccl-tests doc/PERFORMANCE.md), in one
// place for the simulated `k3sim collective` table and the measured NCCL sweep (kernels/nccl): algbw = bytes
// / time, where bytes is the per-rank size as nccl-tests reports it (the full vector for all-reduce, the
// gathered / input vector for all-gather / reduce-scatter, the whole send buffer for all-to-all, the
// message for send/recv); busbw = algbw x factor: all-reduce 2 (n - 1) / n, reduce-scatter, all-gather and
// all-to-all (n - 1) / n, send/recv 1. With one rank busbw is 0. Header-only and free of other includes of
// ours, so that nvcc compiles it into the NCCL sweep.
#include <cstddef>
#include <cstdint>

namespace k3::net {

enum class CollectiveOp : std::uint8_t { allreduce, reducescatter, allgather, alltoall, sendrecv };

constexpr double busbw_factor(CollectiveOp op, std::size_t ranks) {
  if (ranks == 0) return 0.0;
  const double n = static_cast<double>(ranks);
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
