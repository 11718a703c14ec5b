#pragma once
// Quantile Balancing's global quantile by histogram (DESIGN.md "Load balancing"): per expert j, B bins over
// [lo, hi) of r_ij = cutoff_i - score_ij; after the integer all-reduce, each expert's new bias is the
// value where the cumulative count first reaches q = m k / n (m tokens), interpolated inside that bin;
// then the mean bias is subtracted. The error of a read-out is at most one bin width.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace k3::kernels {

struct QbHistogramShape {
  std::size_t experts = 896;
  std::size_t bins = 1000;
  float lo = -2.0f;  // b_min - 1
  float hi = 2.0f;   // b_max + 1
  // Bins per unit of r, computed once in float so that host and device bin every value identically.
  float inv_bin_width() const { return static_cast<float>(bins) / (hi - lo); }
};

// The bin of r: floor((r - lo) * inv_bin_width), clamped into [0, bins).
std::size_t qb_bin(float r, const QbHistogramShape& s);

// `scores` [tokens, experts] (sigmoid, unbiased), `cutoff` [tokens]. Returns counts [experts, bins].
std::vector<std::uint32_t> qb_histogram_ref(std::span<const float> scores, std::span<const float> cutoff,
                                            std::size_t tokens, const QbHistogramShape& s);

// Per expert, the value at cumulative count `q` (q = tokens * k / experts), interpolated in its bin.
std::vector<float> qb_quantile_ref(std::span<const std::uint32_t> counts, const QbHistogramShape& s, double q);

// New biases: the quantiles minus their mean.
std::vector<float> qb_bias_from_quantiles(std::span<const float> quantiles);

// Read FP32 scores and cutoffs; the histogram stays on chip.
inline double qb_histogram_bytes(std::size_t tokens, const QbHistogramShape& s) {
  return 4.0 * static_cast<double>(tokens) * static_cast<double>(s.experts + 1);
}

}  // namespace k3::kernels
