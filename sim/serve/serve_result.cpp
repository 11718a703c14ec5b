#include "sim/serve/serve_result.hpp"

#include <algorithm>

#include "core/statistics.hpp"

namespace k3::serve {

LatencyStats latency_stats(std::vector<double> v) {
  LatencyStats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const auto at = [&](double p) { return core::quantile_of_sorted(v, p); };
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  s.p50 = at(0.5), s.p90 = at(0.9), s.p99 = at(0.99), s.max = v.back();
  return s;
}

std::vector<KvSample> peak_per_interval(const std::vector<KvSample>& samples, core::Seconds span_s,
                                        std::size_t intervals) {
  std::vector<KvSample> out;
  if (samples.empty() || span_s <= 0 || intervals == 0) return out;
  std::vector<KvSample> peaks(intervals);
  std::vector<bool> seen(intervals, false);
  for (const auto& s : samples) {
    const auto b = std::min(intervals - 1, static_cast<std::size_t>(s.time_s / span_s * static_cast<double>(intervals)));
    if (!seen[b] || s.utilisation > peaks[b].utilisation) peaks[b] = s;
    seen[b] = true;
  }
  for (std::size_t b = 0; b < intervals; ++b)
    if (seen[b]) out.push_back(peaks[b]);
  return out;
}

}  // namespace k3::serve
