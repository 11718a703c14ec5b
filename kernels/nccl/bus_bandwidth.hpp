#pragma once
// nccl-tests' bandwidth definitions (nccl-tests doc/PERFORMANCE.md): algbw = bytes / time, where bytes is
// the per-rank buffer size as nccl-tests reports it (the full vector for all-reduce, the gathered / input
// vector for all-gather / reduce-scatter, the whole send buffer for all-to-all); busbw = algbw * factor:
// all-reduce 2 (n - 1) / n, reduce-scatter, all-gather and all-to-all (n - 1) / n. With one rank busbw is 0.
#include <cstddef>
#include <string_view>

namespace k3::kernels {

enum class Collective { kAllReduce, kReduceScatter, kAllGather, kAllToAll };

constexpr double bus_bandwidth_factor(Collective c, std::size_t ranks) {
  const double n = static_cast<double>(ranks);
  return c == Collective::kAllReduce ? 2.0 * (n - 1.0) / n : (n - 1.0) / n;
}

constexpr std::string_view collective_name(Collective c) {
  switch (c) {
    case Collective::kAllReduce: return "all_reduce";
    case Collective::kReduceScatter: return "reduce_scatter";
    case Collective::kAllGather: return "all_gather";
    case Collective::kAllToAll: return "all_to_all";
  }
  return "unknown";
}

}  // namespace k3::kernels
