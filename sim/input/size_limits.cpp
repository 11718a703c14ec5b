#include "sim/input/size_limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace k3::input {

namespace {

// estimate = fixed + per_gpu x gpus, per network model. Since issue 23 nothing of a step grows faster than the GPU
// count: the passes are simulated per stage class on one block, the DP rings from one of their steps, the
// symmetry check routes only the other blocks' transfers that leave their leaf, and a network's state covers
// the links its flows cross. What grows is the topology itself (vertices, links, the switch distances) and the
// per-GPU checks. Measured with `/usr/bin/time -f '%e s %U user %M KiB' k3sim run scenarios/k3-h200-2048.yaml
// --set network=<model> --set cluster.fabric.radix=128 --set cluster.nodes=N --set batch.global_batch_seqs=120 x
// GPUs/16 --samples 0 -j 1` (Release, GCC 12, one core of a shared 2-core machine):
//   analytical:  9,216 GPUs 1.0 s CPU 67 MB;  32,768 GPUs 1.1 s 96 MB;  98,304 GPUs 1.6 s + 0.6 s sys 195 MB
//   flow:        2,048 GPUs 13.5 s CPU 215 MB (the per-stage passes replayed flow by flow: a fixed cost)
// Memory: (195 - 96) MB / 65,536 GPUs = 1.5 kB per GPU, rounded up to 2 kB; the constant (100 MB analytical,
// 250 MB flow) covers the model, the pass programs and the flow model's replays. Time: (2.2 - 1.4) s / 65,536
// GPUs = 1.2e-5 s per GPU, rounded up to 2e-5 s; constants 5 s (analytical) and 30 s (flow) cover the passes.
struct Fit {
  double fixed_bytes, bytes_per_gpu, fixed_s, seconds_per_gpu;
};
constexpr Fit kAnalytical{100e6, 2e3, 5, 2e-5};
constexpr Fit kFlow{250e6, 2e3, 30, 2e-5};

// A model that replays overlapping collectives together solves max-min rates as flows come and go (the flow
// fit); the other times each collective once (the analytical fit).
const Fit& fit_for(const net::NetworkModelEntry& network) {
  return network.replays_overlapping_collectives ? kFlow : kAnalytical;
}

std::string gib(double bytes) { return fmt::format("{:.1f} GiB", bytes / double(1ull << 30)); }

}  // namespace

SizeEstimate estimate_step_size(std::int64_t gpus, const net::NetworkModelEntry& network) {
  const auto& f = fit_for(network);
  const auto g = static_cast<double>(gpus);
  return {gpus, f.fixed_bytes + f.bytes_per_gpu * g, f.fixed_s + f.seconds_per_gpu * g};
}

void check_size_limits(const Scenario& scenario, std::int64_t gpus, const SizeLimits& limits) {
  const auto e = estimate_step_size(gpus, *scenario.network);
  if (e.memory_bytes <= limits.max_memory_bytes && e.seconds <= limits.max_seconds) return;
  const auto& f = fit_for(*scenario.network);
  const double by_memory = std::max(0.0, limits.max_memory_bytes - f.fixed_bytes) / f.bytes_per_gpu;
  const double by_time = std::max(0.0, limits.max_seconds - f.fixed_s) / f.seconds_per_gpu;
  const auto largest = static_cast<std::int64_t>(std::floor(std::min(by_memory, by_time)));
  throw core::InputError(
      {scenario.source, scenario.nodes ? "cluster.nodes" : "cluster.topology", 0},
      fmt::format("{} GPUs are too many to simulate with the {} network: estimated {} and {:.0f} s, over the limit "
                  "of {} and {:.0f} s",
                  gpus, scenario.network->name, gib(e.memory_bytes), e.seconds, gib(limits.max_memory_bytes),
                  limits.max_seconds),
      fmt::format("at most {} GPUs with network {}", largest, scenario.network->name));
}

}  // namespace k3::input
