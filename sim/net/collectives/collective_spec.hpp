#pragma once
// What a collective is (operation, algorithm, ranks, sizes) and how its bandwidth is reported, following
// nccl-tests (https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md): algbw = bytes / time,
// busbw = algbw x a factor that makes busbw comparable to link bandwidth across rank counts.
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/units.hpp"
#include "sim/net/collectives/bus_bandwidth.hpp"
#include "topologies/topology.hpp"

namespace k3::net {

enum class CollectiveAlgorithm : std::uint8_t { ring, hierarchical, flat, deepep, deepep_ll };
// A copy between a GPU and its host's memory, over the GPU's host port (network_factory.hpp).
enum class HostCopy : std::uint8_t { none, to_gpu, to_host };

std::string_view to_string(CollectiveOp op);
std::string_view to_string(CollectiveAlgorithm algorithm);
std::optional<CollectiveOp> parse_collective_op(std::string_view text);
std::optional<CollectiveAlgorithm> parse_collective_algorithm(std::string_view text);

// The algorithms, registered by name with a one-line description (`k3sim list collectives`,
// `k3sim collective --algorithm`); collective_plan.cpp expands each into transfers.
struct CollectiveAlgorithmEntry {
  std::string_view name;
  std::string_view description;
  CollectiveAlgorithm algorithm;
};
std::span<const CollectiveAlgorithmEntry> collective_algorithms();

// DeepEP's kernels move NVLink data with the GPU's own SMs (transfers marked sm_copy, network_factory.hpp).
constexpr bool uses_sm_copies(CollectiveAlgorithm a) {
  return a == CollectiveAlgorithm::deepep || a == CollectiveAlgorithm::deepep_ll;
}

// `bytes` is the nccl-tests size: all-reduce, the buffer each rank reduces; reduce-scatter, each rank's
// input (it keeps bytes / n); all-gather, each rank's output (it contributes bytes / n); all-to-all, each
// rank's send buffer (bytes / n to every rank, itself included); send/recv, the message.
struct CollectiveSpec {
  CollectiveOp op = CollectiveOp::allreduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  std::vector<topo::GpuId> ranks;  // send/recv: {source, destination}
  core::Bytes bytes = 0;
  // All-to-all only, row-major n x n, [source rank][destination rank] (rank = position in `ranks`).
  // Empty: uniform bytes / n. With a matrix, `bytes` is ignored and reported as the mean row total.
  std::vector<core::Bytes> byte_matrix;
  // DeepEP only, row-major n x nodes, [source rank][node position]: bytes the source sends over its NIC
  // to that node after deduplicating tokens bound for several GPUs of the node. Nodes are numbered in the
  // order they first appear in `ranks`. Empty: no deduplication (the row sum of byte_matrix over the node).
  std::vector<core::Bytes> node_bytes;
  // DeepEP only: the NIC copy is sent in this many chunks; NVLink forwarding of a chunk starts when it
  // arrives, so the two stages overlap.
  int pipeline_chunks = 4;
  // Bytes every rank first copies from host memory (its shard of offloaded parameters, before an all-gather) and
  // last copies to host memory (its gradient shard, after a reduce-scatter), over its own host port. Timed with the
  // collective; not part of the nccl-tests size.
  core::Bytes host_in_bytes = 0;
  core::Bytes host_out_bytes = 0;
};

// nccl-tests bus bandwidth factor: 2(n-1)/n for all-reduce, (n-1)/n for reduce-scatter, all-gather and
// all-to-all, 1 for send/recv.

struct CollectiveResult {
  CollectiveOp op = CollectiveOp::allreduce;
  core::SimTime start, finish;
  core::Seconds time_s = 0;
  core::Bytes bytes = 0;  // the nccl-tests size
  core::BytesPerSec algbw_bytes_per_s = 0;
  core::BytesPerSec busbw_bytes_per_s = 0;
  std::size_t flows = 0;
};

}  // namespace k3::net
