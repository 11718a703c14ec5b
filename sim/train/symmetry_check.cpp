#include "sim/train/symmetry_check.hpp"

#include <algorithm>
#include <utility>

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
  // Block b's copy moves between the same pairs shifted by b - base GPUs (exec::over_fabric).
  std::vector<char> used(topology.links().size(), 0);
  const auto pairs = pairs_of(specs, topology);
  for (const auto& [src, dst] : pairs)
    for (topo::LinkId l : topology.route(src, dst)) used[l] = 1;
  const auto all = exec::over_fabric(specs, block_gpus, job_gpus);
  const std::size_t per_block = specs.size();
  std::vector<net::CollectiveSpec> contending(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(per_block));
  for (std::size_t b = per_block; b < all.size(); b += per_block) {
    const auto shift = static_cast<std::int64_t>(all[b].ranks.front()) - static_cast<std::int64_t>(specs.front().ranks.front());
    bool shares = false;
    for (std::size_t p = 0; p < pairs.size() && !shares; ++p) {
      for (topo::LinkId l : topology.route(static_cast<topo::GpuId>(pairs[p].first + shift),
                                           static_cast<topo::GpuId>(pairs[p].second + shift))) {
        if (used[l] != 0) {
          shares = true;
          break;
        }
      }
    }
    if (!shares) continue;
    ++r.sharing_blocks;
    contending.insert(contending.end(), all.begin() + static_cast<std::ptrdiff_t>(b),
                      all.begin() + static_cast<std::ptrdiff_t>(b + per_block));
  }
  r.fabric_s = r.sharing_blocks > 0 ? runner.concurrent_time(contending, nullptr, &analytical) : r.block_s;
  return r;
}

}  // namespace k3::train
