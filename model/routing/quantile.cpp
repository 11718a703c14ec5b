#include "model/routing/quantile.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/error.hpp"

namespace k3::routing {

namespace {

// Experts are processed in blocks so that gathering columns of the row-major score matrix stays in cache.
constexpr int kExpertBlock = 32;

int experts_of(std::span<const RankRouting> ranks) {
  K3SIM_ASSERT(!ranks.empty(), "no ranks");
  return static_cast<int>(ranks.front().scores->cols());
}

// Calls fn(expert_block_begin, columns) with columns[b] = r_{:, begin + b} over the given ranks.
template <typename Fn>
void for_each_expert_column(std::span<const RankRouting> ranks, Fn&& fn) {
  const int n = experts_of(ranks);
  std::vector<std::vector<float>> columns(kExpertBlock);
  for (int begin = 0; begin < n; begin += kExpertBlock) {
    const int width = std::min(kExpertBlock, n - begin);
    for (auto& c : columns) c.clear();
    for (const auto& rank : ranks) {
      const auto& s = *rank.scores;
      for (Eigen::Index i = 0; i < s.rows(); ++i) {
        const float alpha = rank.routed->cutoff[static_cast<std::size_t>(i)];
        const float* row = s.data() + i * s.cols() + begin;
        for (int b = 0; b < width; ++b) columns[static_cast<std::size_t>(b)].push_back(alpha - row[b]);
      }
    }
    fn(begin, width, columns);
  }
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
    const double alpha = rank.routed->cutoff[static_cast<std::size_t>(i)];
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
  const int n = experts_of(ranks);
  double m = 0;
  for (const auto& r : ranks) m += static_cast<double>(r.scores->rows());
  const double q = m * top_k / n;
  std::vector<double> t(static_cast<std::size_t>(n));
  for_each_expert_column(ranks, [&](int begin, int width, std::vector<std::vector<float>>& columns) {
    for (int b = 0; b < width; ++b)
      t[static_cast<std::size_t>(begin + b)] = exact_quantile(columns[static_cast<std::size_t>(b)], q);
  });
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

}  // namespace k3::routing
