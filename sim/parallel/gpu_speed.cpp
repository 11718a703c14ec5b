#include "sim/parallel/gpu_speed.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/rng.hpp"

namespace k3::parallel {

GpuSpeeds::GpuSpeeds(GpuSpeedSpec spec, std::int64_t gpus, std::uint64_t seed)
    : spec_(std::move(spec)), stream_(core::Rng::derive(seed, 0x6770755F7370ULL)) {  // "gpu_sp"
  for (const auto& s : spec_.slow) {
    if (s.gpu >= gpus) {
      throw core::InputError(s.where,
                             fmt::format("GPU {} is not in the job", s.gpu), fmt::format("a GPU index from 0 to {}", gpus - 1));
    }
  }
  for (const auto& r : spec_.ranges) {
    if (r.first + r.count > gpus) {
      throw core::InputError(r.where, fmt::format("GPUs {} to {} are not all in the job", r.first, r.first + r.count - 1),
                             fmt::format("a range within GPUs 0 to {}", gpus - 1));
    }
  }
}

double GpuSpeeds::of(GpuIndex gpu) const {
  // Listed GPUs last: a later entry for the same GPU wins, as a later --set does.
  for (auto it = spec_.slow.rbegin(); it != spec_.slow.rend(); ++it) {
    if (it->gpu == static_cast<std::int64_t>(gpu)) return it->speed;
  }
  const auto g = static_cast<std::int64_t>(gpu);
  for (auto it = spec_.ranges.rbegin(); it != spec_.ranges.rend(); ++it) {
    if (g >= it->first && g < it->first + it->count) return it->speed;
  }
  if (spec_.spread <= 0) return 1;
  const double u = static_cast<double>(core::Rng::derive(stream_, gpu) >> 11) * 0x1.0p-53;
  return 1 - spec_.spread / 2 + spec_.spread * u;
}

bool SimulatedBlocks::uniform_within(int rank) const {
  const auto& s = speed[static_cast<std::size_t>(rank)];
  for (double v : s) {
    if (v != s.front()) return false;
  }
  return true;
}

double SimulatedBlocks::slowest_in(int rank) const {
  double out = 1;
  bool first = true;
  for (double v : speed[static_cast<std::size_t>(rank)]) out = first ? v : std::min(out, v), first = false;
  return out;
}

SimulatedBlocks choose_simulated_blocks(const RankMapping& map, const GpuSpeeds& speeds) {
  const auto& l = map.layout();
  const std::int64_t per_stage = stage_ranks(l);
  SimulatedBlocks out;
  std::map<std::vector<double>, int> classes{{{}, 0}};
  for (int pp = 0; pp < l.pp; ++pp) {
    const auto first = static_cast<GpuIndex>(static_cast<std::int64_t>(pp) * per_stage);
    GpuIndex slowest = first;
    double slowest_speed = 1;
    bool any = false;
    if (speeds.modelled()) {
      slowest_speed = speeds.of(first);
      for (std::int64_t i = 0; i < per_stage; ++i) {
        const auto g = static_cast<GpuIndex>(first + i);
        const double v = speeds.of(g);
        any = any || v != 1;
        if (v < slowest_speed) slowest = g, slowest_speed = v;
      }
    }
    if (pp == 0 || slowest_speed < out.slowest_speed) out.slowest_gpu = slowest, out.slowest_speed = slowest_speed;
    out.gpus.push_back(any ? map.block_of(slowest) : map.simulated_block(pp));
    std::vector<double> speed;
    if (any) {
      for (auto g : out.gpus.back()) speed.push_back(speeds.of(g));
      bool all_one = true;
      for (double v : speed) all_one = all_one && v == 1;
      if (all_one) speed.clear();
    }
    out.speed_class.push_back(classes.emplace(speed, static_cast<int>(classes.size())).first->second);
    out.speed.push_back(std::move(speed));
  }
  return out;
}

}  // namespace k3::parallel
