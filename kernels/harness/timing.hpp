#pragma once
// Summary statistics of repeated timings: median and the 10th / 90th percentiles (linear interpolation
// between order statistics), keeping every sample for the profile.
#include <vector>

namespace k3::kernels {

struct Timing {
  double median_s = 0;
  double p10_s = 0;
  double p90_s = 0;
  std::vector<double> samples_s;
};

double percentile(std::vector<double> values, double q);  // q in [0, 1]; values non-empty
Timing summarize(std::vector<double> samples_s);

}  // namespace k3::kernels
