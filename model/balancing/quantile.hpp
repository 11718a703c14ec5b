#pragma once
// The per-expert quantile Quantile Balancing needs. With r_ij = alpha_i - s_ij (token i's cutoff minus its
// score for expert j), expert j is chosen by token i exactly when r_ij < b_j, so the bias that gives expert j
// its fair share q = m k / n of the m tokens is the q-th smallest r_ij: the "threshold" t_j below. QB sets
// b = t - mean(t). Three ways to get t from a batch spread over ranks:
//   exact      - the q-th smallest of all m values (needs every value in one place);
//   histogram  - per rank, per expert, B bins over [b_min - 1, b_max + 1] (r always lies there since scores
//                are in (0, 1)); counts summed across ranks; the first bin whose cumulative count reaches q,
//                interpolated linearly inside it. Error <= one bin width (K3);
//   local mean - each rank's own exact q_r-th smallest (q_r = m_r k / n), averaged over ranks (the older way).
#include <cstdint>
#include <span>
#include <vector>

#include "model/routing/synthetic_router.hpp"
#include "model/routing/topk_selection.hpp"

namespace k3::balancing {

// One rank's share of the global batch: its scores and how they were routed with the current bias.
struct RankRouting {
  const routing::ScoreMatrix* scores = nullptr;
  const routing::RoutedBatch* routed = nullptr;
};

// The rank-ceil(q) (1-based) smallest value; q is clamped to [1, size]. Reorders `values`.
float exact_quantile(std::vector<float>& values, double q);

// Per-expert histograms of r_ij over one fixed range; additive across ranks (what K3 all-reduces).
class QuantileHistogram {
 public:
  QuantileHistogram(int experts, int bins, double lo, double hi);
  void add_rank(const RankRouting& rank);
  void merge(const QuantileHistogram& other);
  double bin_width() const { return (hi_ - lo_) / bins_; }
  // First bin whose cumulative count reaches q, interpolated inside it.
  double quantile(int expert, double q) const;
  std::int64_t total(int expert) const;

 private:
  int experts_, bins_;
  double lo_, hi_;
  std::vector<std::uint32_t> counts_;  // experts x bins; the wire format is these 32-bit counts
};

// Thresholds t_j (uncentred) from the global batch. `top_k` is k of the router.
std::vector<double> thresholds_exact(std::span<const RankRouting> ranks, int top_k);
std::vector<double> thresholds_histogram(std::span<const RankRouting> ranks, int top_k, int bins,
                                         std::span<const float> current_bias, double* bin_width = nullptr);
std::vector<double> thresholds_local_mean(std::span<const RankRouting> ranks, int top_k);

// b = t - mean(t).
std::vector<float> centred_bias(const std::vector<double>& thresholds);

}  // namespace k3::balancing
