#include "model/balancing/quantile.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace k3::balancing {

namespace {

int experts_of(std::span<const RankRouting> ranks) {
  K3SIM_ASSERT(!ranks.empty(), "no ranks");
  return static_cast<int>(ranks.front().scores->cols());
}

}  // namespace

float exact_quantile(std::vector<float>& values, double q) {
  K3SIM_ASSERT(!values.empty(), "quantile of no values");
  const auto size = static_cast<double>(values.size());
  const double rank = std::clamp(std::ceil(q - 1e-9), 1.0, size);
  const auto nth = values.begin() + static_cast<std::ptrdiff_t>(rank) - 1;
  std::nth_element(values.begin(), nth, values.end());
  return *nth;
}

QuantileHistogram::QuantileHistogram(int experts, int bins, double lo, double hi)
    : experts_(experts), bins_(bins), lo_(lo), hi_(hi),
      counts_(static_cast<std::size_t>(experts) * static_cast<std::size_t>(bins), 0) {
  K3SIM_ASSERT(bins >= 2 && hi > lo, "histogram needs >= 2 bins over a non-empty range");
}

void QuantileHistogram::add_rank(const RankRouting& rank) {
  const auto& s = *rank.scores;
  const double inv_width = bins_ / (hi_ - lo_);
  for (Eigen::Index i = 0; i < s.rows(); ++i) {
    const double alpha = static_cast<double>(rank.routed->cutoff[static_cast<std::size_t>(i)]);
    const float* row = s.data() + i * s.cols();
    std::uint32_t* counts = counts_.data();
    for (int j = 0; j < experts_; ++j) {
      const double r = alpha - static_cast<double>(row[j]);
      const auto bin = std::clamp(static_cast<int>((r - lo_) * inv_width), 0, bins_ - 1);
      ++counts[static_cast<std::size_t>(j) * static_cast<std::size_t>(bins_) + static_cast<std::size_t>(bin)];
    }
  }
}

void QuantileHistogram::merge(const QuantileHistogram& other) {
  K3SIM_ASSERT(other.counts_.size() == counts_.size() && other.lo_ == lo_ && other.hi_ == hi_, "histograms differ");
  for (std::size_t c = 0; c < counts_.size(); ++c) counts_[c] += other.counts_[c];
}

std::int64_t QuantileHistogram::total(int expert) const {
  std::int64_t t = 0;
  for (int b = 0; b < bins_; ++b) t += counts_[static_cast<std::size_t>(expert) * static_cast<std::size_t>(bins_) + static_cast<std::size_t>(b)];
  return t;
}

double QuantileHistogram::quantile(int expert, double q) const {
  const std::uint32_t* counts = counts_.data() + static_cast<std::size_t>(expert) * static_cast<std::size_t>(bins_);
  const double w = bin_width();
  double cumulative = 0;
  for (int b = 0; b < bins_; ++b) {
    const double c = counts[b];
    if (c > 0 && cumulative + c >= q) {
      const double inside = std::clamp((q - cumulative) / c, 0.0, 1.0);
      return lo_ + w * (b + inside);
    }
    cumulative += c;
  }
  return hi_;
}

std::vector<double> thresholds_exact(std::span<const RankRouting> ranks, int top_k) {
  // Exact, in two passes instead of a selection over every column: pass 1 counts each expert's values in
  // coarse bins and finds the bin holding the wanted rank; pass 2 keeps only that bin's values and selects
  // inside them. Both passes compute the bin with the same arithmetic, so the bin's members are exactly
  // those counted and the result is the exact rank-ceil(q) value.
  const int n = experts_of(ranks);
  double m = 0;
  float alpha_min = std::numeric_limits<float>::infinity(), alpha_max = -alpha_min;
  for (const auto& r : ranks) {
    m += static_cast<double>(r.scores->rows());
    for (float a : r.routed->cutoff) {
      alpha_min = std::min(alpha_min, a);
      alpha_max = std::max(alpha_max, a);
    }
  }
  const double wanted = std::clamp(std::ceil(m * top_k / n - 1e-9), 1.0, m);
  constexpr int kBins = 256;
  // r = alpha - s with s in [0, 1]; values outside (rounding) are clamped into the end bins by both passes.
  const double lo = static_cast<double>(alpha_min) - 1.0, hi = static_cast<double>(alpha_max) + 1e-6;
  const double inv_width = kBins / (hi - lo);
  auto bin_of = [&](double r) { return std::clamp(static_cast<int>((r - lo) * inv_width), 0, kBins - 1); };
  std::vector<std::uint32_t> counts(static_cast<std::size_t>(n) * kBins, 0);
  for (const auto& rank : ranks) {
    const auto& s = *rank.scores;
    for (Eigen::Index i = 0; i < s.rows(); ++i) {
      const double alpha = static_cast<double>(rank.routed->cutoff[static_cast<std::size_t>(i)]);
      const float* row = s.data() + i * s.cols();
      for (int j = 0; j < n; ++j)
        ++counts[static_cast<std::size_t>(j) * kBins + static_cast<std::size_t>(bin_of(alpha - static_cast<double>(row[j])))];
    }
  }
  std::vector<int> target_bin(static_cast<std::size_t>(n));
  std::vector<double> rank_in_bin(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) {
    double cumulative = 0;
    int b = 0;
    for (; b < kBins; ++b) {
      const double c = counts[static_cast<std::size_t>(j) * kBins + static_cast<std::size_t>(b)];
      if (cumulative + c >= wanted) break;
      cumulative += c;
    }
    target_bin[static_cast<std::size_t>(j)] = std::min(b, kBins - 1);
    rank_in_bin[static_cast<std::size_t>(j)] = wanted - cumulative;
  }
  std::vector<std::vector<float>> members(static_cast<std::size_t>(n));
  for (const auto& rank : ranks) {
    const auto& s = *rank.scores;
    for (Eigen::Index i = 0; i < s.rows(); ++i) {
      const double alpha = static_cast<double>(rank.routed->cutoff[static_cast<std::size_t>(i)]);
      const float* row = s.data() + i * s.cols();
      for (int j = 0; j < n; ++j) {
        const double r = alpha - static_cast<double>(row[j]);
        if (bin_of(r) == target_bin[static_cast<std::size_t>(j)])
          members[static_cast<std::size_t>(j)].push_back(static_cast<float>(r));
      }
    }
  }
  std::vector<double> t(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j)
    t[static_cast<std::size_t>(j)] = static_cast<double>(exact_quantile(members[static_cast<std::size_t>(j)], rank_in_bin[static_cast<std::size_t>(j)]));
  return t;
}

std::vector<double> thresholds_histogram(std::span<const RankRouting> ranks, int top_k, int bins,
                                         std::span<const float> current_bias, double* bin_width) {
  const int n = experts_of(ranks);
  const auto [bmin, bmax] = std::minmax_element(current_bias.begin(), current_bias.end());
  const double lo = static_cast<double>(*bmin) - 1.0, hi = static_cast<double>(*bmax) + 1.0;
  // K3 fills one histogram per rank and all-reduces the n x B integer counts. Integer sums are exact and
  // order-free, so adding every rank into one histogram gives bit for bit the all-reduced result without
  // allocating a histogram per rank (the merge itself is tested against this).
  QuantileHistogram global(n, bins, lo, hi);
  double m = 0;
  for (const auto& rank : ranks) {
    global.add_rank(rank);
    m += static_cast<double>(rank.scores->rows());
  }
  if (bin_width) *bin_width = global.bin_width();
  const double q = m * top_k / n;
  std::vector<double> t(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) t[static_cast<std::size_t>(j)] = global.quantile(j, q);
  return t;
}

std::vector<double> thresholds_local_mean(std::span<const RankRouting> ranks, int top_k) {
  const int n = experts_of(ranks);
  std::vector<double> t(static_cast<std::size_t>(n), 0.0);
  for (const auto& rank : ranks) {
    const RankRouting one[] = {rank};
    const auto local = thresholds_exact(one, top_k);
    for (int j = 0; j < n; ++j) t[static_cast<std::size_t>(j)] += local[static_cast<std::size_t>(j)];
  }
  for (double& v : t) v /= static_cast<double>(ranks.size());
  return t;
}

std::vector<float> centred_bias(const std::vector<double>& thresholds) {
  double mean = 0;
  for (double v : thresholds) mean += v;
  mean /= static_cast<double>(thresholds.size());
  std::vector<float> b(thresholds.size());
  for (std::size_t j = 0; j < b.size(); ++j) b[j] = static_cast<float>(thresholds[j] - mean);
  return b;
}

}  // namespace k3::balancing
