#include "sim/train/symmetry_check.hpp"

#include <algorithm>
#include <utility>

#include "core/error.hpp"
#include "sim/net/collectives/collective_plan.hpp"
#include "sim/net/network_registry.hpp"

namespace k3::train {

namespace {

// The distinct (source, destination) pairs the collectives' transfers move data between.
std::vector<std::pair<topo::GpuId, topo::GpuId>> pairs_of(const std::vector<net::CollectiveSpec>& specs,
                                                          const topo::Topology& topology) {
  std::vector<std::pair<topo::GpuId, topo::GpuId>> pairs;
  for (const auto& spec : specs) {
    for (const auto& t : net::expand_collective(spec, topology).transfers) {
      if (!t.barrier && t.src != t.dst) pairs.emplace_back(t.src, t.dst);
    }
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

// True when another block's transfers can share a link with this block's only above the leaves: blocks are
// whole nodes, every node has its NVSwitch and every GPU its NIC and leaf, so that Topology::route takes its
// structured path (NIC, leaf, switch walk, leaf, NIC, NVLink inside the destination node), whose links below
// the leaves belong to the transfer's own nodes.
bool blocks_share_only_above_leaves(const topo::Topology& topology, int block_gpus, std::int64_t job_gpus) {
  const int per_node = topology.gpus_per_node();
  if (per_node <= 0 || block_gpus % per_node != 0) return false;
  for (std::int64_t n = 0; per_node > 1 && n < job_gpus / per_node; ++n) {
    if (topology.nvswitch_of_node(static_cast<int>(n)) == topo::kNoVertex) return false;
  }
  for (std::int64_t g = 0; g < job_gpus; ++g) {
    const auto gpu = static_cast<topo::GpuId>(g);
    if (topology.nic_of(gpu) == topo::kNoVertex || topology.leaf_of(gpu) == topo::kNoVertex) return false;
  }
  return true;
}

// Whether the structured route from `src` to `dst` leaves the source's leaf (Topology::route_into).
bool leaves_the_leaf(const topo::Topology& topology, topo::GpuId src, topo::GpuId dst) {
  const int ns = topology.node_of(src), nd = topology.node_of(dst);
  if (ns == nd) return false;
  const topo::GpuId relay = topology.rail_aligned() ? topology.gpu_at(nd, topology.local_index(src)) : dst;
  return topology.leaf_of(src) != topology.leaf_of(relay);
}

}  // namespace

SymmetryCheckResult check_symmetry(const exec::PassRunner& runner, const topo::Topology& topology,
                                   const workload::CollectiveCall& call, int block_gpus, std::int64_t job_gpus) {
  const auto& analytical = net::network_model("analytical", {});
  const auto specs = runner.specs_of(call);
  SymmetryCheckResult r;
  r.ran = true;
  r.blocks = static_cast<int>(job_gpus / block_gpus);
  r.block_s = runner.concurrent_time(specs, nullptr, &analytical);
  // Only the copies that cross a link the block's own transfers cross can slow it: the others are left out
  // of the simulation (on a fabric whose blocks do not share links, the check simulates nothing more).
  // Block b's copy moves between the same pairs shifted by b - base GPUs (exec::over_fabric). The other
  // blocks' routes are computed, not cached (a route per pair of the job would be most of a 98K-GPU step's
  // memory), and skipped where no transfer of the copy leaves its leaf when only links above the leaves can
  // be shared.
  std::vector<char> used(topology.links().size(), 0);
  const auto pairs = pairs_of(specs, topology);
  for (const auto& [src, dst] : pairs)
    for (topo::LinkId l : topology.route(src, dst)) used[l] = 1;
  const bool above_leaves_only = blocks_share_only_above_leaves(topology, block_gpus, job_gpus);
  auto contending = specs;
  std::int64_t base = specs.front().ranks.front();
  for (const auto& s : specs)
    for (auto g : s.ranks) base = std::min<std::int64_t>(base, g);
  base = base / block_gpus * block_gpus;
  std::vector<topo::LinkId> path;
  for (std::int64_t b = 0; b < job_gpus; b += block_gpus) {
    if (b == base) continue;
    const std::int64_t shift = b - base;
    const auto moved = [shift](topo::GpuId g) { return static_cast<topo::GpuId>(g + shift); };
    bool shares = false;
    for (std::size_t p = 0; p < pairs.size() && !shares; ++p) {
      const auto src = moved(pairs[p].first), dst = moved(pairs[p].second);
      if (above_leaves_only && !leaves_the_leaf(topology, src, dst)) continue;
      topology.route_into(src, dst, 0, path);
      for (topo::LinkId l : path) {
        if (used[l] != 0) {
          shares = true;
          break;
        }
      }
    }
    if (!shares) continue;
    ++r.sharing_blocks;
    for (const auto& s : specs) {
      contending.push_back(s);
      for (auto& g : contending.back().ranks) g = moved(g);
    }
  }
  r.fabric_s = r.sharing_blocks > 0 ? runner.concurrent_time(contending, nullptr, &analytical) : r.block_s;
  return r;
}

SymmetryCheckResult choose_network_scope(const NetworkScopeOptions& options, const StepPlan& plan,
                                         const std::shared_ptr<const workload::TrafficMatrix>& first_dispatch,
                                         exec::PassRunner& runner, const topo::Topology& topology) {
  SymmetryCheckResult symmetry;
  symmetry.scope = options.scope == NetworkScope::automatic ? "auto" : options.scope == NetworkScope::block ? "block" : "fabric";
  const auto& L = plan.map.layout();
  if (L.ep <= 1 || first_dispatch == nullptr || options.scope == NetworkScope::block) return symmetry;
  if (L.ep_spread) {
    // A spread EP group is not a block of consecutive GPUs, which the copies are shifted by.
    if (options.scope == NetworkScope::fabric)
      throw core::InputError({options.source, "network_scope", 0}, "fabric needs EP groups of consecutive GPUs",
                             "parallel.ep_spread: false with network_scope: fabric, or network_scope: auto or block");
    return symmetry;
  }
  workload::CollectiveCall call;
  call.kind = workload::CollectiveKind::dispatch;
  call.gpus = plan.map.simulated_block(0);
  call.matrix = first_dispatch;
  call.group_size = plan.map.ep_shape().size;
  call.group_stride = plan.map.ep_shape().stride;
  const auto block = static_cast<int>(call.gpus.size());
  const auto job = static_cast<std::int64_t>(topology.gpu_count());
  const auto check = [&] { return check_symmetry(runner, topology, call, block, job); };
  const StepReuse::SymmetryKey key{call.matrix.get(), call.gpus, call.group_size, call.group_stride, block};
  symmetry = options.reuse != nullptr ? options.reuse->find_or_make(options.reuse->symmetry, key, check) : check();
  symmetry.scope = options.scope == NetworkScope::fabric ? "fabric" : "auto";
  symmetry.full_fabric = options.scope == NetworkScope::fabric || symmetry.difference() > kSymmetryBound;
  if (symmetry.full_fabric) runner.use_full_fabric(block, job);
  return symmetry;
}

}  // namespace k3::train
