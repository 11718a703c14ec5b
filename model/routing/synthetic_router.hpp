#pragma once
// A synthetic MoE router that reproduces what load balancing has to fight: tokens drawn from a mixture of
// topics (so ranks can see different data), per-expert router weights plus per-expert popularity offsets
// (the initial imbalance), sigmoid scores, and optional drift over steps (a random walk of the router, and a
// rich-get-richer feedback that strengthens experts that were overloaded, as training without balancing
// does). Scores are s = sigmoid(W x + p), W in R^{n x d}, x in R^d; the feature dimension d is synthetic
// (a few tens), since only the score distribution matters for routing and balancing.
#include <Eigen/Core>

#include <cstdint>
#include <span>
#include <vector>

namespace k3::routing {

// Token x expert scores, one token per row so a token's scores are contiguous for selection.
using ScoreMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using FeatureMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct RouterConfig {
  int feature_dim = 32;
  int topics = 16;
  double topic_spread = 0.8;      // std of topic centroids per feature = std of a topic's mean logit per expert
  double token_noise = 0.6;       // std of each token's own features around its topic centroid
  double popularity_sigma = 0.3;  // std of the per-expert logit offsets p_j (initial imbalance), logit units
  double rank_topic_skew = 0.0;   // 0: every rank draws topics uniformly; 1: rank r draws only topic r mod topics
  double drift_walk = 0.0;        // per-step std of the random walk of every logit W x + p (logit units)
  double drift_feedback = 0.0;    // rich-get-richer: p_j += drift_feedback * (load_j / mean load - 1) per step
  std::uint64_t seed = 1;
};

// Throws InputError for negative spreads, skew outside [0, 1], feature_dim or topics < 1.
void validate(const RouterConfig& cfg, const char* source);

class SyntheticRouter {
 public:
  SyntheticRouter(int experts, const RouterConfig& cfg);

  int experts() const { return experts_; }
  const RouterConfig& config() const { return cfg_; }

  // Features of the tokens one rank sees at one step. The random stream is derived from (seed, step, rank)
  // only, so every balancer run of an experiment is fed the same tokens (common random numbers).
  void draw_features(int step, int rank, int tokens, FeatureMatrix& features) const;
  // s = sigmoid(features W^T + p): the hot path (one GEMM, a broadcast add, a vectorised logistic).
  void score(const FeatureMatrix& features, ScoreMatrix& scores) const;
  void score_batch(int step, int rank, int tokens, ScoreMatrix& scores) const;

  // Applies one step of drift after a step whose global per-expert load was `expert_load`.
  void drift(int step, std::span<const double> expert_load);

 private:
  int experts_;
  RouterConfig cfg_;
  Eigen::MatrixXf weights_t_;      // d x n (W transposed), column-major for the GEMM
  Eigen::RowVectorXf popularity_;  // p, 1 x n
  FeatureMatrix topic_centroids_;  // topics x d
};

// A portable, cheap approximately-normal draw (Irwin-Hall of four 16-bit uniforms, unit variance): token
// features need a bell shape, not exact normal tails, and this is ~10x cheaper than Box-Muller.
inline float approx_normal(std::uint64_t bits) {
  const auto a = static_cast<double>(bits & 0xFFFF) + static_cast<double>((bits >> 16) & 0xFFFF) +
                 static_cast<double>((bits >> 32) & 0xFFFF) + static_cast<double>(bits >> 48);
  // mean 4 * 32767.5, variance 4 * (65536^2 - 1) / 12
  return static_cast<float>((a - 131070.0) * (1.0 / 37837.2));
}

}  // namespace k3::routing
