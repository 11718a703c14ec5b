#include "kernels/qb_histogram/qb_ref.hpp"

#include <cmath>

#include "core/error.hpp"

namespace k3::kernels {

std::size_t qb_bin(float r, const QbHistogramShape& s) {
  const float x = (r - s.lo) * s.inv_bin_width();
  if (!(x > 0.0f)) return 0;  // also NaN
  const auto b = static_cast<std::size_t>(std::floor(x));
  return b >= s.bins ? s.bins - 1 : b;
}

std::vector<std::uint32_t> qb_histogram_ref(std::span<const float> scores, std::span<const float> cutoff,
                                            std::size_t tokens, const QbHistogramShape& s) {
  K3SIM_ASSERT(scores.size() == tokens * s.experts && cutoff.size() == tokens, "qb_histogram_ref: bad sizes");
  std::vector<std::uint32_t> counts(s.experts * s.bins, 0);
  for (std::size_t t = 0; t < tokens; ++t) {
    for (std::size_t e = 0; e < s.experts; ++e) {
      ++counts[e * s.bins + qb_bin(cutoff[t] - scores[t * s.experts + e], s)];
    }
  }
  return counts;
}

std::vector<float> qb_quantile_ref(std::span<const std::uint32_t> counts, const QbHistogramShape& s, double q) {
  K3SIM_ASSERT(counts.size() == s.experts * s.bins, "qb_quantile_ref: bad sizes");
  const double width = static_cast<double>(s.hi - s.lo) / static_cast<double>(s.bins);
  std::vector<float> out(s.experts);
  for (std::size_t e = 0; e < s.experts; ++e) {
    double before = 0;
    std::size_t b = 0;
    for (; b < s.bins; ++b) {
      const auto c = static_cast<double>(counts[e * s.bins + b]);
      if (c > 0 && before + c >= q) break;
      before += c;
    }
    if (b == s.bins) {  // fewer than q tokens in total: the top of the range
      out[e] = s.hi;
      continue;
    }
    const auto c = static_cast<double>(counts[e * s.bins + b]);
    const double frac = (q - before) / c;
    out[e] = static_cast<float>(static_cast<double>(s.lo) + width * (static_cast<double>(b) + frac));
  }
  return out;
}

std::vector<float> qb_bias_from_quantiles(std::span<const float> quantiles) {
  double mean = 0;
  for (float v : quantiles) mean += static_cast<double>(v);
  mean /= static_cast<double>(quantiles.size());
  std::vector<float> out(quantiles.size());
  for (std::size_t i = 0; i < quantiles.size(); ++i) out[i] = static_cast<float>(static_cast<double>(quantiles[i]) - mean);
  return out;
}

}  // namespace k3::kernels
