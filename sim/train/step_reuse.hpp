#pragma once
// What the runs of one uncertainty band or the candidates of one plan search share (StepOptions::reuse).
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/exec/pass_runner.hpp"
#include "sim/exec/replay_memo.hpp"
#include "sim/parallel/rank_mapping.hpp"
#include "sim/train/step_result.hpp"
#include "sim/workload/moe_sampling.hpp"
#include "sim/workload/pass_program.hpp"

namespace k3::train {

// What runs share: the runs of one uncertainty band (step_band.hpp), or the candidates of one `k3sim plan`
// search. Each entry is keyed by everything it depends on, so runs that differ share only what is the same:
// the sampled expert load (by its sampling spec), the symmetry check (by the sampled dispatch and its
// block), the collectives simulated alone (exec::SoloCollectiveMemo's keys) and the passes replayed flow by
// flow (exec::ReplayMemo's). The solo memo's keys point into the sampled traffic matrices, so samples are
// kept for the reuse's lifetime.
struct StepReuse {
  std::mutex mutex;
  // The sampled expert load by an XXH3-128 digest of its whole sampling spec (expert_load_sample.cpp).
  using MoeSampleKey = std::pair<std::uint64_t, std::uint64_t>;
  std::map<MoeSampleKey, std::shared_ptr<const workload::MoeSample>> moe;
  // The routing the samples are drawn from, by workload::routed_traffic_key: samples that differ only in the
  // micro-batch's tokens, the element bytes, the expert load or the GPUs' numbering share one.
  std::map<std::string, std::shared_ptr<const workload::RoutedTraffic>> routed;
  // The symmetry check by (dispatch matrix, group GPUs, EP shape, block GPUs); it reads the routing sample
  // and the fabric, which the runs share; the link figures a band run moves change its two times alike.
  using SymmetryKey = std::tuple<const workload::TrafficMatrix*, std::vector<parallel::GpuIndex>, int, int, int>;
  std::map<SymmetryKey, SymmetryCheckResult> symmetry;
  std::shared_ptr<exec::SoloCollectiveMemo> collectives = std::make_shared<exec::SoloCollectiveMemo>();
  // Passes replayed flow by flow, by their fingerprint (exec/replay_fingerprint.hpp): the same stages placed
  // on other GPUs of a symmetric fabric share one replay.
  std::shared_ptr<exec::ReplayMemo> replays = std::make_shared<exec::ReplayMemo>();

  // The entry of `key` in `map` (moe or symmetry), made by `make` outside the lock when absent: a thread that
  // made the same key meanwhile wins, and equal keys make equal entries.
  template <typename Map, typename Make>
  typename Map::mapped_type find_or_make(Map& map, const typename Map::key_type& key, Make&& make) {
    {
      const std::lock_guard lock(mutex);
      if (const auto it = map.find(key); it != map.end()) return it->second;
    }
    auto made = make();
    const std::lock_guard lock(mutex);
    return map.emplace(key, std::move(made)).first->second;
  }
};

}  // namespace k3::train
