#include "sim/input/size_limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace k3::input {

namespace {

// estimate = fixed + per_gpu_squared x gpus^2, per network model. Measured with
// `/usr/bin/time -f '%e s %M KiB' k3sim run scenarios/k3-h200-2048.yaml --set network=<model>
//  --set cluster.topology=<h200-rail with radix 512> --set cluster.nodes=N --set batch.global_batch_seqs=16 N`
// (Release, GCC 12, one core of the build machine):
//   analytical:  2,048 GPUs 16.7 s  97 MB;  16,384 GPUs 21.4 s 315 MB;  98,304 GPUs 168.7 s 12.2 GB
//   flow:       16,384 GPUs 32.7 s 339 MB (one point: the quadratic time term is taken as (32.7 - 20) / 16,384^2
//               = 4.7e-8 s, rounded up to 5e-8 s, memory as for analytical; 100,000 GPUs extrapolate to 525 s)
// Memory: 98,304^2 x 1.3 B = 12.6 GB; the constant covers the model and the pass programs (about 100 MB).
// Time: the K3 layout's per-stage passes take about 16 s at any size; 98,304^2 x 1.6e-8 s = 155 s on top.
struct Fit {
  double fixed_bytes, bytes_per_gpu_squared, fixed_s, seconds_per_gpu_squared;
};
constexpr Fit kAnalytical{100e6, 1.3, 20, 1.6e-8};
constexpr Fit kFlow{100e6, 1.3, 25, 5e-8};

// A model that replays overlapping collectives together solves max-min rates as flows come and go (the flow
// fit); the other times each collective once (the analytical fit).
const Fit& fit_for(const net::NetworkModelEntry& network) {
  return network.replays_overlapping_collectives ? kFlow : kAnalytical;
}

std::string gib(double bytes) { return fmt::format("{:.1f} GiB", bytes / double(1ull << 30)); }

}  // namespace

SizeEstimate estimate_step_size(std::int64_t gpus, const net::NetworkModelEntry& network) {
  const auto& f = fit_for(network);
  const double g2 = static_cast<double>(gpus) * static_cast<double>(gpus);
  return {gpus, f.fixed_bytes + f.bytes_per_gpu_squared * g2, f.fixed_s + f.seconds_per_gpu_squared * g2};
}

void check_size_limits(const Scenario& scenario, std::int64_t gpus, const SizeLimits& limits) {
  const auto e = estimate_step_size(gpus, *scenario.network);
  if (e.memory_bytes <= limits.max_memory_bytes && e.seconds <= limits.max_seconds) return;
  const auto& f = fit_for(*scenario.network);
  const double by_memory = std::sqrt(std::max(0.0, limits.max_memory_bytes - f.fixed_bytes) / f.bytes_per_gpu_squared);
  const double by_time = std::sqrt(std::max(0.0, limits.max_seconds - f.fixed_s) / f.seconds_per_gpu_squared);
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
