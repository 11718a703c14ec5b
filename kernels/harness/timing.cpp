#include "kernels/harness/timing.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace k3::kernels {

double percentile(std::vector<double> values, double q) {
  K3SIM_ASSERT(!values.empty() && q >= 0 && q <= 1, "percentile: empty input or q outside [0, 1]");
  std::sort(values.begin(), values.end());
  const double pos = q * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (pos - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

Timing summarize(std::vector<double> samples_s) {
  Timing t;
  t.median_s = percentile(samples_s, 0.5);
  t.p10_s = percentile(samples_s, 0.1);
  t.p90_s = percentile(samples_s, 0.9);
  t.samples_s = std::move(samples_s);
  return t;
}

}  // namespace k3::kernels
