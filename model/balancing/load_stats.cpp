#include "model/balancing/load_stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "core/error.hpp"

namespace k3::balancing {

double max_vio(std::span<const double> expert_load) {
  if (expert_load.empty()) return 0;
  const double mean = std::accumulate(expert_load.begin(), expert_load.end(), 0.0) / static_cast<double>(expert_load.size());
  if (mean <= 0) return 0;
  return (*std::max_element(expert_load.begin(), expert_load.end()) - mean) / mean;
}

double max_over_mean(std::span<const double> load) {
  if (load.empty()) return 0;
  const double mean = std::accumulate(load.begin(), load.end(), 0.0) / static_cast<double>(load.size());
  if (mean <= 0) return 0;
  return *std::max_element(load.begin(), load.end()) / mean;
}

double maxvio_noise_floor(double tokens, int experts, int top_k) {
  K3SIM_ASSERT(tokens >= 1 && experts >= 1 && top_k >= 1 && top_k <= experts, "noise floor of an empty batch");
  if (top_k == experts) return 0;  // every expert gets every token
  const auto m = static_cast<long long>(std::llround(tokens));
  const double p = static_cast<double>(top_k) / experts;
  const double mean = static_cast<double>(m) * p;
  const double sd = std::sqrt(mean * (1 - p));
  // Outside mean +- 40 sd the binomial mass is below 1e-300: F^n is 0 below, 1 above.
  const long long lo = std::max(0LL, static_cast<long long>(std::floor(mean - 40 * sd)) - 1);
  const long long hi = std::min(m, static_cast<long long>(std::ceil(mean + 40 * sd)) + 1);
  const double log_p = std::log(p), log_q = std::log1p(-p), lg_m = std::lgamma(static_cast<double>(m) + 1);
  auto pmf = [&](long long x) {
    const auto xd = static_cast<double>(x);
    return std::exp(lg_m - std::lgamma(xd + 1) - std::lgamma(static_cast<double>(m) - xd + 1) + xd * log_p +
                    (static_cast<double>(m) - xd) * log_q);
  };
  // E[max] = sum_{x=0}^{m-1} P(max > x) = sum (1 - (1 - S(x))^n), S(x) = P(L > x) summed from the top so the
  // upper tail keeps full precision.
  double expected_max = static_cast<double>(lo);  // P(max > x) = 1 for x < lo
  double upper_tail = 0;                          // S(x) = P(L > x)
  std::vector<double> tail(static_cast<std::size_t>(hi - lo + 1));
  for (long long x = hi; x >= lo; --x) {
    tail[static_cast<std::size_t>(x - lo)] = upper_tail;
    upper_tail += pmf(x);
  }
  for (long long x = lo; x <= hi; ++x) {
    const double s = tail[static_cast<std::size_t>(x - lo)];
    expected_max += -std::expm1(static_cast<double>(experts) * std::log1p(-std::min(s, 1.0 - 1e-300)));
  }
  return (expected_max - mean) / mean;
}

}  // namespace k3::balancing
