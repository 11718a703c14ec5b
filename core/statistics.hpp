#pragma once
// Quantiles of a sample, as numpy's default computes them: linear interpolation between the order statistics at
// position q x (n - 1). Shared by the band's P10..P90, serving latencies, kernel timings and the kernel tables' rates.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>

#include "core/error.hpp"

namespace k3::core {

// `sorted` ascending and non-empty; q in [0, 1].
inline double quantile_of_sorted(std::span<const double> sorted, double q) {
  K3SIM_ASSERT(!sorted.empty() && q >= 0 && q <= 1, "quantile: empty sample or q outside [0, 1]");
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

}  // namespace k3::core
