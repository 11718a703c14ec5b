#include "kernels/harness/timing.hpp"

#include <algorithm>

#include "core/statistics.hpp"

namespace k3::kernels {

double percentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return core::quantile_of_sorted(values, q);
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
