#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "model/routing/routing_shape.hpp"
#include "model/routing/synthetic_router.hpp"
#include "model/routing/topk_selection.hpp"
#include "core/error.hpp"

using namespace k3::routing;

namespace {
std::vector<float> small_bias(int n) {
  std::vector<float> b(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) b[static_cast<std::size_t>(j)] = 0.02f * static_cast<float>((j * 7) % 11 - 5);
  return b;
}
}  // namespace

TEST(SyntheticRouter, SameSeedSameScoresAndRanksDiffer) {
  RouterConfig cfg;
  cfg.seed = 7;
  SyntheticRouter a(64, cfg), b(64, cfg);
  ScoreMatrix sa, sb, other_rank;
  a.score_batch(3, 1, 100, sa);
  b.score_batch(3, 1, 100, sb);
  a.score_batch(3, 2, 100, other_rank);
  EXPECT_EQ(sa, sb);
  EXPECT_NE(sa, other_rank);
  // Sigmoid scores lie strictly inside (0, 1) for these moderate logits.
  EXPECT_GT(sa.minCoeff(), 0.0f);
  EXPECT_LT(sa.maxCoeff(), 1.0f);
}

TEST(SyntheticRouter, PopularityOffsetsCreateImbalanceAndSkewSeparatesRanks) {
  // Without balancing, experts with large offsets p_j take more tokens: MaxVio of the unbiased routing grows
  // with popularity_sigma.
  auto spread = [](double sigma) {
    RouterConfig cfg;
    cfg.popularity_sigma = sigma;
    SyntheticRouter r(128, cfg);
    ScoreMatrix s;
    r.score_batch(0, 0, 4000, s);
    RoutedBatch rb;
    route_topk(s, std::vector<float>(128, 0.0f), 4, rb);
    std::vector<double> load(128, 0.0);
    accumulate_expert_load(rb, load);
    return *std::max_element(load.begin(), load.end()) / (4000.0 * 4 / 128);
  };
  EXPECT_GT(spread(1.0), spread(0.0) + 0.5);
}

TEST(TopK, MatchesFullSortReferenceAndGatesExcludeBias) {
  for (const auto& [n, k] : std::vector<std::pair<int, int>>{{896, 16}, {448, 8}, {40, 5}}) {
    SyntheticRouter r(n, RouterConfig{});
    ScoreMatrix s;
    r.score_batch(0, 0, 300, s);
    const auto bias = small_bias(n);
    RoutedBatch rb;
    route_topk(s, bias, k, rb);
    for (int i = 0; i < 300; ++i) {
      std::vector<int> order(static_cast<std::size_t>(n));
      std::iota(order.begin(), order.end(), 0);
      auto biased = [&](int j) { return s(i, j) + bias[static_cast<std::size_t>(j)]; };
      std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return biased(x) > biased(y); });
      double gate_sum = 0, score_sum = 0;
      for (int q = 0; q < k; ++q) score_sum += static_cast<double>(s(i, order[static_cast<std::size_t>(q)]));
      for (int q = 0; q < k; ++q) {
        ASSERT_EQ(rb.expert(i, q), order[static_cast<std::size_t>(q)]) << "n=" << n << " token " << i;
        // gate = score / sum of chosen scores, bias left out
        EXPECT_NEAR(rb.gates[static_cast<std::size_t>(i * k + q)],
                    static_cast<double>(s(i, order[static_cast<std::size_t>(q)])) / score_sum, 1e-5);
        gate_sum += static_cast<double>(rb.gates[static_cast<std::size_t>(i * k + q)]);
      }
      EXPECT_NEAR(gate_sum, 1.0, 1e-5);
      EXPECT_EQ(rb.cutoff[static_cast<std::size_t>(i)], biased(order[static_cast<std::size_t>(k)]));
    }
  }
}

TEST(TopK, HandExampleBiasChangesChoiceNotGates) {
  // Scores 0.9, 0.8, 0.3, 0.1; bias +0.6 on expert 3 makes its biased score 0.7 > 0.3 but < 0.8:
  // top-2 = {0, 1}; with bias +0.75 on expert 3 (0.85 > 0.8) top-2 = {0, 3}, gates 0.9/1.0 and 0.1/1.0.
  ScoreMatrix s(1, 4);
  s << 0.9f, 0.8f, 0.3f, 0.1f;
  RoutedBatch rb;
  route_topk(s, std::vector<float>{0, 0, 0, 0.6f}, 2, rb);
  EXPECT_EQ(rb.expert(0, 0), 0);
  EXPECT_EQ(rb.expert(0, 1), 1);
  EXPECT_FLOAT_EQ(rb.cutoff[0], 0.7f);  // third biased score: expert 3 at 0.1 + 0.6
  route_topk(s, std::vector<float>{0, 0, 0, 0.75f}, 2, rb);
  EXPECT_EQ(rb.expert(0, 0), 0);
  EXPECT_EQ(rb.expert(0, 1), 3);
  EXPECT_NEAR(rb.gates[0], 0.9, 1e-6);
  EXPECT_NEAR(rb.gates[1], 0.1, 1e-6);
}

TEST(NodeLimited, HandExamplePicksNodeByBestScoreSums) {
  // 6 experts on 3 nodes {0,1}, {2,3}, {4,5}; k = 2, M = 1, so each node is ranked by its best ceil(2/1) = 2
  // scores: node0 0.9 + 0.1 = 1.0, node1 0.6 + 0.6 = 1.2, node2 0.5 + 0.2 = 0.7. Node 1 wins although
  // expert 0 has the top score: chosen {2, 3}.
  ScoreMatrix s(1, 6);
  s << 0.9f, 0.1f, 0.6f, 0.6f, 0.5f, 0.2f;
  NodeLimit limit{1, {0, 0, 1, 1, 2, 2}, 3};
  RoutedBatch rb;
  route_node_limited(s, std::vector<float>(6, 0.0f), 2, limit, rb);
  std::set<int> chosen{rb.expert(0, 0), rb.expert(0, 1)};
  EXPECT_EQ(chosen, (std::set<int>{2, 3}));
}

TEST(NodeLimited, NeverMoreThanMNodesPerToken) {
  SyntheticRouter r(896, RouterConfig{});
  ScoreMatrix s;
  r.score_batch(0, 0, 500, s);
  NodeLimit limit;
  limit.max_nodes = 4;
  limit.nodes = 8;
  for (int j = 0; j < 896; ++j) limit.node_of_expert.push_back(j / 112);
  RoutedBatch rb;
  route_node_limited(s, small_bias(896), 16, limit, rb);
  for (int i = 0; i < 500; ++i) {
    std::set<int> nodes;
    for (int q = 0; q < 16; ++q) nodes.insert(rb.expert(i, q) / 112);
    EXPECT_LE(nodes.size(), 4u);
  }
}

TEST(NodeLimited, BadLimitIsInputError) {
  NodeLimit limit{9, std::vector<int>(16, 0), 8};
  EXPECT_THROW(validate(limit, 2, "--node-limit"), k3::core::InputError);
  // 2 nodes of 2 experts each cannot supply k = 5
  NodeLimit small{2, {0, 0, 1, 1, 2, 2}, 3};
  EXPECT_THROW(validate(small, 5, "--node-limit"), k3::core::InputError);
}

TEST(RoutingShape, KGreaterThanNIsInputError) {
  EXPECT_THROW(validate(MoeRoutingShape{"x", 8, 9, 16, 1}, "test"), k3::core::InputError);
  EXPECT_NO_THROW(validate(MoeRoutingShape{"x", 8, 8, 16, 1}, "test"));
}
