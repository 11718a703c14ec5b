#pragma once
// The collectives the NCCL sweep measures, named as nccl-tests names its programs; their busbw factors
// are sim/net/collectives/bus_bandwidth.hpp's, the same that the simulated `k3sim collective` table uses.
#include <string_view>

#include "sim/net/collectives/bus_bandwidth.hpp"

namespace k3::kernels {

constexpr std::string_view nccl_tests_name(net::CollectiveOp op) {
  switch (op) {
    case net::CollectiveOp::allreduce: return "all_reduce";
    case net::CollectiveOp::reducescatter: return "reduce_scatter";
    case net::CollectiveOp::allgather: return "all_gather";
    case net::CollectiveOp::alltoall: return "all_to_all";
    case net::CollectiveOp::sendrecv: return "sendrecv";
  }
  return "unknown";
}

}  // namespace k3::kernels
