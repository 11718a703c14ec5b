#include "sim/net/collectives/collective_plan.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string>

#include "core/error.hpp"

namespace k3::net {

namespace {

using core::Bytes;
using topo::GpuId;

[[noreturn]] void bad(const std::string& key, const std::string& problem, const std::string& allowed = {}) {
  throw core::InputError({"<collective>", key, 0}, problem, allowed);
}

std::uint32_t add(CollectivePlan& plan, Transfer t) {
  plan.transfers.push_back(std::move(t));
  return static_cast<std::uint32_t>(plan.transfers.size() - 1);
}

std::uint32_t barrier(CollectivePlan& plan, std::vector<std::uint32_t> after) {
  Transfer t;
  t.barrier = true;
  t.after.assign(after.begin(), after.end());
  return add(plan, std::move(t));
}

// A ring of `steps` steps: at step s every member sends `chunk` to the next member, once it has sent its
// step s-1 chunk and received its predecessor's. Returns the last step's transfers.
std::vector<std::uint32_t> append_ring(CollectivePlan& plan, const std::vector<GpuId>& ring, int steps, Bytes chunk,
                                       const std::vector<std::uint32_t>& start_after) {
  const std::size_t n = ring.size();
  if (n < 2 || steps <= 0) return start_after;
  std::vector<std::uint32_t> previous(n), current(n);
  for (int s = 0; s < steps; ++s) {
    for (std::size_t r = 0; r < n; ++r) {
      Transfer t{ring[r], ring[(r + 1) % n], chunk, false, {}};
      if (s == 0) {
        t.after.assign(start_after.begin(), start_after.end());
      } else {
        t.after = {previous[r], previous[(r + n - 1) % n]};
      }
      current[r] = add(plan, std::move(t));
    }
    std::swap(previous, current);
  }
  return previous;
}

// Ranks grouped by node, nodes in order of first appearance, each group ordered by local index.
std::vector<std::vector<GpuId>> group_by_node(const std::vector<GpuId>& ranks, const topo::Topology& topology) {
  std::vector<std::vector<GpuId>> groups;
  std::map<int, std::size_t> position;
  for (GpuId g : ranks) {
    const int node = topology.node_of(g);
    auto [it, fresh] = position.emplace(node, groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(g);
  }
  for (auto& group : groups) {
    std::sort(group.begin(), group.end(),
              [&](GpuId a, GpuId b) { return topology.local_index(a) < topology.local_index(b); });
  }
  return groups;
}

void require_same_local_indices(const std::vector<std::vector<GpuId>>& groups, const topo::Topology& topology,
                                std::string_view algorithm) {
  for (const auto& group : groups) {
    bool same = group.size() == groups.front().size();
    for (std::size_t i = 0; same && i < group.size(); ++i)
      same = topology.local_index(group[i]) == topology.local_index(groups.front()[i]);
    if (!same)
      bad("ranks", std::string(algorithm) + " needs every node of the rank set to hold the same local GPU indices",
          "whole nodes, or the same GPUs of every node");
  }
}

CollectivePlan expand_ring_family(const CollectiveSpec& spec, std::size_t n) {
  CollectivePlan plan;
  plan.reported_bytes = spec.bytes;
  const Bytes chunk = spec.bytes / static_cast<double>(n);
  const int n_int = static_cast<int>(n);
  const int steps = spec.op == CollectiveOp::allreduce ? 2 * (n_int - 1) : n_int - 1;
  append_ring(plan, spec.ranks, steps, chunk, {});
  return plan;
}

CollectivePlan expand_hierarchical_allreduce(const CollectiveSpec& spec, const topo::Topology& topology) {
  const auto nodes = group_by_node(spec.ranks, topology);
  require_same_local_indices(nodes, topology, "hierarchical all-reduce");
  const std::size_t g = nodes.front().size(), m = nodes.size();
  const Bytes shard = spec.bytes / static_cast<double>(g);
  CollectivePlan plan;
  plan.reported_bytes = spec.bytes;
  // Phase 1: reduce-scatter inside every node; each rank then owns one reduced shard of S/g.
  std::vector<std::uint32_t> ends;
  for (const auto& node : nodes) {
    auto e = append_ring(plan, node, static_cast<int>(g) - 1, shard, {});
    ends.insert(ends.end(), e.begin(), e.end());
  }
  std::vector<std::uint32_t> gate;
  if (!ends.empty()) gate = {barrier(plan, ends)};
  // Phase 2: all-reduce of the shard across nodes, one ring per local index (one rail each).
  ends.clear();
  for (std::size_t p = 0; p < g; ++p) {
    std::vector<GpuId> rail;
    for (const auto& node : nodes) rail.push_back(node[p]);
    auto e = append_ring(plan, rail, 2 * (static_cast<int>(m) - 1), shard / static_cast<double>(m), gate);
    ends.insert(ends.end(), e.begin(), e.end());
  }
  if (!ends.empty()) gate = {barrier(plan, ends)};
  // Phase 3: all-gather inside every node.
  for (const auto& node : nodes) append_ring(plan, node, static_cast<int>(g) - 1, shard, gate);
  return plan;
}

std::vector<Bytes> alltoall_matrix(const CollectiveSpec& spec, std::size_t n, Bytes& reported) {
  if (spec.byte_matrix.empty()) {
    reported = spec.bytes;
    return std::vector<Bytes>(n * n, spec.bytes / static_cast<double>(n));
  }
  if (spec.byte_matrix.size() != n * n)
    bad("byte_matrix", "has " + std::to_string(spec.byte_matrix.size()) + " entries for " + std::to_string(n) +
                           " ranks", "ranks x ranks entries, row-major [source][destination]");
  for (Bytes b : spec.byte_matrix)
    if (!(b >= 0)) bad("byte_matrix", "holds a negative or NaN byte count", "bytes >= 0");
  reported = std::accumulate(spec.byte_matrix.begin(), spec.byte_matrix.end(), 0.0) / static_cast<double>(n);
  return spec.byte_matrix;
}

CollectivePlan expand_flat_alltoall(const CollectiveSpec& spec, std::size_t n) {
  CollectivePlan plan;
  const auto matrix = alltoall_matrix(spec, n, plan.reported_bytes);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      if (i != j && matrix[i * n + j] > 0) add(plan, Transfer{spec.ranks[i], spec.ranks[j], matrix[i * n + j], false, {}});
  return plan;
}

CollectivePlan expand_deepep_alltoall(const CollectiveSpec& spec, const topo::Topology& topology) {
  const std::size_t n = spec.ranks.size();
  const auto nodes = group_by_node(spec.ranks, topology);
  require_same_local_indices(nodes, topology, "deepep all-to-all");
  if (spec.pipeline_chunks < 1) bad("pipeline_chunks", "must be at least 1", ">= 1");
  CollectivePlan plan;
  const auto matrix = alltoall_matrix(spec, n, plan.reported_bytes);
  const std::size_t node_count = nodes.size();
  if (!spec.node_bytes.empty() && spec.node_bytes.size() != n * node_count)
    bad("node_bytes", "has " + std::to_string(spec.node_bytes.size()) + " entries", "ranks x nodes entries");
  std::map<int, std::size_t> node_position;
  for (std::size_t k = 0; k < node_count; ++k) node_position[topology.node_of(nodes[k].front())] = k;
  std::map<GpuId, std::size_t> rank_of;
  for (std::size_t r = 0; r < n; ++r) rank_of[spec.ranks[r]] = r;

  const auto chunks = static_cast<std::size_t>(spec.pipeline_chunks);
  for (std::size_t i = 0; i < n; ++i) {
    const GpuId src = spec.ranks[i];
    const std::size_t home = node_position.at(topology.node_of(src));
    for (std::size_t k = 0; k < node_count; ++k) {
      const auto& node = nodes[k];
      if (k == home) {
        // Same node: straight over NVLink, by the sender's SMs (DeepEP's kernels copy with TMA, not NCCL).
        for (GpuId dst : node)
          if (dst != src && matrix[i * n + rank_of[dst]] > 0)
            add(plan, Transfer{src, dst, matrix[i * n + rank_of[dst]], false, {}, true});
        continue;
      }
      Bytes per_gpu_sum = 0, per_gpu_max = 0;
      for (GpuId dst : node) {
        per_gpu_sum += matrix[i * n + rank_of[dst]];
        per_gpu_max = std::max(per_gpu_max, matrix[i * n + rank_of[dst]]);
      }
      const Bytes nic_bytes = spec.node_bytes.empty() ? per_gpu_sum : spec.node_bytes[i * node_count + k];
      if (!(nic_bytes >= per_gpu_max * (1 - 1e-9) && nic_bytes <= per_gpu_sum * (1 + 1e-9)))
        bad("node_bytes", "rank " + std::to_string(i) + " to node " + std::to_string(k) + ": " +
                              std::to_string(nic_bytes) + " B is outside what deduplication allows",
            "between the largest and the sum of that rank's bytes to the node's GPUs");
      if (nic_bytes <= 0) continue;
      // The relay is the destination node's GPU on the source's rail (same local index).
      const GpuId relay = *std::find_if(node.begin(), node.end(), [&](GpuId g) {
        return topology.local_index(g) == topology.local_index(src);
      });
      std::uint32_t previous_chunk = 0;
      for (std::size_t c = 0; c < chunks; ++c) {
        Transfer copy{src, relay, nic_bytes / static_cast<double>(chunks), false, {}};
        if (c > 0) copy.after = {previous_chunk};
        previous_chunk = add(plan, std::move(copy));
        for (GpuId dst : node) {
          const Bytes forward = matrix[i * n + rank_of[dst]];
          if (dst != relay && forward > 0)
            add(plan, Transfer{relay, dst, forward / static_cast<double>(chunks), false, {previous_chunk}, true});
        }
      }
    }
  }
  return plan;
}

// DeepEP's low-latency kernels (csrc/kernels/internode_ll.cu): each (token, expert) copy is one message
// written straight into a buffer on the expert's GPU, with no relay and no deduplication (so the byte matrix
// counts every copy); a same-node peer is written with NVLink stores by the sender's SMs
// (allow_nvlink_for_low_latency_mode, on by default since DeepEP PR #173), whose completion flag follows the
// data in order. Across nodes each (rank, peer) pair ends with an RDMA atomic on the same queue pair, which a multi-path NIC issues only once the
// writes before it are acknowledged: one round trip after the data (DeepEP PR #437, "one RTT of latency for
// each atomic that follows writes"). The receiver's wait for that count is the kernel's end.
CollectivePlan expand_deepep_ll_alltoall(const CollectiveSpec& spec, const topo::Topology& topology) {
  const std::size_t n = spec.ranks.size();
  CollectivePlan plan;
  const auto matrix = alltoall_matrix(spec, n, plan.reported_bytes);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      const GpuId src = spec.ranks[i], dst = spec.ranks[j];
      if (i == j || matrix[i * n + j] <= 0) continue;
      const bool same_node = topology.node_of(src) == topology.node_of(dst);
      const auto data = add(plan, Transfer{src, dst, matrix[i * n + j], false, {}, same_node});
      if (same_node) continue;
      const auto ack = add(plan, Transfer{dst, src, 0, false, {data}});
      add(plan, Transfer{src, dst, 0, false, {ack}});
    }
  }
  return plan;
}

[[noreturn]] void wrong_algorithm(const CollectiveSpec& spec, const std::string& allowed) {
  bad("algorithm", std::string(to_string(spec.algorithm)) + " is not an algorithm of " + std::string(to_string(spec.op)),
      allowed);
}

}  // namespace

std::size_t CollectivePlan::flow_count() const {
  return static_cast<std::size_t>(
      std::count_if(transfers.begin(), transfers.end(), [](const Transfer& t) { return !t.barrier; }));
}

void check_collective(const CollectiveSpec& spec, const topo::Topology& topology) {
  if (spec.ranks.empty()) bad("ranks", "is empty", "at least one GPU");
  std::set<GpuId> seen;
  for (GpuId g : spec.ranks) {
    if (g >= topology.gpu_count())
      bad("ranks", "GPU " + std::to_string(g) + " is not in topology '" + topology.name() + "'",
          "0.." + std::to_string(topology.gpu_count() - 1));
    if (!seen.insert(g).second) bad("ranks", "GPU " + std::to_string(g) + " appears twice", "distinct GPUs");
  }
  if (!(spec.bytes >= 0)) bad("bytes", "is negative or NaN", "bytes >= 0");
  if (!(spec.host_in_bytes >= 0 && spec.host_out_bytes >= 0))
    bad("host_bytes", "is negative or NaN", "bytes >= 0");
  if ((spec.host_in_bytes > 0 || spec.host_out_bytes > 0) && !(topology.gpu_type().host_link_bytes_per_s > 0))
    bad("host_bytes", "GPU type '" + topology.gpu_type().name + "' states no host link",
        "a GPU type with host_link_bytes_per_s (topologies/README.md)");
}

namespace {

// The transfers between GPUs of `spec` (its host copies aside).
CollectivePlan expand_between_gpus(const CollectiveSpec& spec, const topo::Topology& topology) {
  const std::size_t n = spec.ranks.size();
  switch (spec.op) {
    case CollectiveOp::allreduce:
      if (spec.algorithm == CollectiveAlgorithm::ring) return expand_ring_family(spec, n);
      if (spec.algorithm == CollectiveAlgorithm::hierarchical) return expand_hierarchical_allreduce(spec, topology);
      wrong_algorithm(spec, "ring, hierarchical");
    case CollectiveOp::reducescatter:
    case CollectiveOp::allgather:
      if (spec.algorithm == CollectiveAlgorithm::ring) return expand_ring_family(spec, n);
      wrong_algorithm(spec, "ring");
    case CollectiveOp::alltoall:
      if (spec.algorithm == CollectiveAlgorithm::flat) return expand_flat_alltoall(spec, n);
      if (spec.algorithm == CollectiveAlgorithm::deepep) return expand_deepep_alltoall(spec, topology);
      if (spec.algorithm == CollectiveAlgorithm::deepep_ll) return expand_deepep_ll_alltoall(spec, topology);
      wrong_algorithm(spec, "flat, deepep, deepep-ll");
    case CollectiveOp::sendrecv: {
      if (n != 2) bad("ranks", "send/recv takes exactly two GPUs", "{source, destination}");
      if (spec.algorithm != CollectiveAlgorithm::flat) wrong_algorithm(spec, "flat");
      CollectivePlan plan;
      plan.reported_bytes = spec.bytes;
      add(plan, Transfer{spec.ranks[0], spec.ranks[1], spec.bytes, false, {}});
      return plan;
    }
  }
  bad("op", "unknown collective operation");
}

Transfer host_copy(GpuId g, Bytes bytes, HostCopy direction) {
  Transfer t{g, g, bytes, false, {}};
  t.host = direction;
  return t;
}

// Every rank's copy in from host memory before any transfer of `inner` starts, and every rank's copy out after the
// last has finished: the shards an offloaded FSDP layer brings up before its all-gather and sends down after its
// reduce-scatter. A rank's first ring send needs only its own shard; the barrier makes every rank wait for the
// slowest copy, which costs nothing where the ranks' copies are alike (each crosses its own port).
CollectivePlan with_host_copies(const CollectiveSpec& spec, CollectivePlan inner) {
  if (spec.host_in_bytes <= 0 && spec.host_out_bytes <= 0) return inner;
  CollectivePlan plan;
  plan.reported_bytes = inner.reported_bytes;
  std::optional<std::uint32_t> ready;
  if (spec.host_in_bytes > 0) {
    std::vector<std::uint32_t> ins;
    for (GpuId g : spec.ranks) ins.push_back(add(plan, host_copy(g, spec.host_in_bytes, HostCopy::to_gpu)));
    ready = barrier(plan, std::move(ins));
  }
  const auto shift = static_cast<std::uint32_t>(plan.transfers.size());
  for (Transfer t : inner.transfers) {
    for (auto& before : t.after) before += shift;
    if (t.after.empty() && ready) t.after = {*ready};
    add(plan, std::move(t));
  }
  if (spec.host_out_bytes > 0) {
    std::vector<bool> waited_for(plan.transfers.size(), false);
    for (const Transfer& t : plan.transfers)
      for (std::uint32_t before : t.after) waited_for[before] = true;
    std::vector<std::uint32_t> last;
    for (std::uint32_t t = 0; t < plan.transfers.size(); ++t)
      if (!waited_for[t]) last.push_back(t);
    const std::uint32_t done = barrier(plan, std::move(last));
    for (GpuId g : spec.ranks) {
      Transfer t = host_copy(g, spec.host_out_bytes, HostCopy::to_host);
      t.after = {done};
      add(plan, std::move(t));
    }
  }
  return plan;
}

}  // namespace

CollectivePlan expand_collective(const CollectiveSpec& spec, const topo::Topology& topology) {
  check_collective(spec, topology);
  return with_host_copies(spec, expand_between_gpus(spec, topology));
}

}  // namespace k3::net
