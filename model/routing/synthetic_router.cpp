#include "model/routing/synthetic_router.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"
#include "core/rng.hpp"

namespace k3::routing {

namespace {
// Labels of the independent random streams derived from the seed.
constexpr std::uint64_t kStreamWeights = 1, kStreamTopics = 2, kStreamTokens = 3, kStreamDrift = 4;
}  // namespace

void validate(const RouterConfig& cfg, const char* source) {
  auto bad = [&](const char* key, double v, const char* allowed) {
    throw core::InputError({source, key, 0}, fmt::format("value {}", v), allowed);
  };
  if (cfg.feature_dim < 1) bad("feature_dim", cfg.feature_dim, ">= 1");
  if (cfg.topics < 1) bad("topics", cfg.topics, ">= 1");
  if (!(cfg.topic_spread >= 0)) bad("topic_spread", cfg.topic_spread, ">= 0");
  if (!(cfg.token_noise >= 0)) bad("token_noise", cfg.token_noise, ">= 0");
  if (!(cfg.popularity_sigma >= 0)) bad("popularity_sigma", cfg.popularity_sigma, ">= 0");
  if (!(cfg.rank_topic_skew >= 0 && cfg.rank_topic_skew <= 1)) bad("rank_topic_skew", cfg.rank_topic_skew, "[0, 1]");
  if (!(cfg.drift_walk >= 0)) bad("drift_walk", cfg.drift_walk, ">= 0");
  if (!(cfg.drift_feedback >= 0)) bad("drift_feedback", cfg.drift_feedback, ">= 0");
}

SyntheticRouter::SyntheticRouter(int experts, const RouterConfig& cfg)
    : experts_(experts), cfg_(cfg), weights_t_(cfg.feature_dim, experts), popularity_(experts),
      topic_centroids_(cfg.topics, cfg.feature_dim) {
  validate(cfg, "router");
  core::Rng rng(core::Rng::derive(cfg.seed, kStreamWeights));
  // W_jk ~ N(0, 1/d): the logit W x then has the variance of one feature of x.
  const double w_std = 1.0 / std::sqrt(static_cast<double>(cfg.feature_dim));
  for (int j = 0; j < experts; ++j) {
    for (int f = 0; f < cfg.feature_dim; ++f) weights_t_(f, j) = static_cast<float>(rng.normal(0.0, w_std));
    popularity_(j) = static_cast<float>(rng.normal(0.0, cfg.popularity_sigma));
  }
  core::Rng topics(core::Rng::derive(cfg.seed, kStreamTopics));
  for (int t = 0; t < cfg.topics; ++t)
    for (int f = 0; f < cfg.feature_dim; ++f)
      topic_centroids_(t, f) = static_cast<float>(topics.normal(0.0, cfg.topic_spread));
}

void SyntheticRouter::draw_features(int step, int rank, int tokens, FeatureMatrix& features) const {
  const auto stream = core::Rng::derive(core::Rng::derive(cfg_.seed, kStreamTokens),
                                        (static_cast<std::uint64_t>(step) << 24) + static_cast<std::uint64_t>(rank));
  core::Rng rng(stream);
  features.resize(tokens, cfg_.feature_dim);
  const int home_topic = rank % cfg_.topics;
  const auto noise = static_cast<float>(cfg_.token_noise);
  for (int i = 0; i < tokens; ++i) {
    // Topic from the rank's mixture: the home topic with probability skew, else uniform over all topics.
    int topic = static_cast<int>(rng.below(static_cast<std::uint64_t>(cfg_.topics)));
    if (cfg_.rank_topic_skew > 0 && rng.uniform() < cfg_.rank_topic_skew) topic = home_topic;
    for (int f = 0; f < cfg_.feature_dim; ++f)
      features(i, f) = topic_centroids_(topic, f) + noise * approx_normal(rng.next_u64());
  }
}

void SyntheticRouter::score(const FeatureMatrix& features, ScoreMatrix& scores) const {
  scores.resize(features.rows(), experts_);
  scores.noalias() = features * weights_t_;
  scores.rowwise() += popularity_;
  scores = scores.array().logistic().matrix();
}

void SyntheticRouter::score_batch(int step, int rank, int tokens, ScoreMatrix& scores) const {
  FeatureMatrix features;
  draw_features(step, rank, tokens, features);
  score(features, scores);
}

void SyntheticRouter::drift(int step, std::span<const double> expert_load) {
  if (cfg_.drift_walk > 0) {
    core::Rng rng(core::Rng::derive(core::Rng::derive(cfg_.seed, kStreamDrift), static_cast<std::uint64_t>(step)));
    // Half the logit variance of the walk in W x, half in p: each logit moves by drift_walk (std) per step,
    // given features of unit-order variance.
    const double part = cfg_.drift_walk * std::sqrt(0.5);
    const double feat_var = cfg_.topic_spread * cfg_.topic_spread + cfg_.token_noise * cfg_.token_noise;
    const double w_std = feat_var > 0 ? part / std::sqrt(feat_var * cfg_.feature_dim) : 0.0;
    for (int j = 0; j < experts_; ++j) {
      for (int f = 0; f < cfg_.feature_dim; ++f) weights_t_(f, j) += static_cast<float>(rng.normal(0.0, w_std));
      popularity_(j) += static_cast<float>(rng.normal(0.0, part));
    }
  }
  if (cfg_.drift_feedback > 0 && static_cast<int>(expert_load.size()) == experts_) {
    double mean = 0;
    for (double l : expert_load) mean += l;
    mean /= experts_;
    if (mean > 0)
      for (int j = 0; j < experts_; ++j)
        popularity_(j) += static_cast<float>(cfg_.drift_feedback * (expert_load[static_cast<std::size_t>(j)] / mean - 1.0));
  }
}

}  // namespace k3::routing
