#include <gtest/gtest.h>

#include "model/balancing/balancer_state.hpp"
#include "model/routing/expert_load.hpp"
#include "model/routing/model_shape.hpp"
#include "core/error.hpp"

using namespace k3::routing;

namespace {
k3::balancing::BalanceConfig base(const std::string& balancer) {
  k3::balancing::BalanceConfig c;
  c.shape = load_routing_shape("k3-448", "test");
  c.balancer = k3::balancing::parse_balancer(balancer, "test", 1000);
  c.ranks = 2;
  c.tokens_per_rank = 512;
  c.placement = {PlacementKind::contiguous, 16, 8, 0};
  return c;
}
}  // namespace

TEST(ExpertLoad, UniformIsOneOverG) {
  const auto u = uniform_expert_load(3, 16);
  EXPECT_DOUBLE_EQ(u.share(2, 5), 1.0 / 16);
  EXPECT_DOUBLE_EQ(u.max_over_mean(0), 1.0);
}

TEST(ExpertLoad, BalancedLayersAreFlatterThanUnbalancedOnes) {
  const auto qb = k3::balancing::expert_load_after_balancing(base("qb-hist"), 3, 8, 2);
  const auto none = k3::balancing::expert_load_after_balancing(base("none"), 3, 8, 2);
  ASSERT_EQ(qb.layers, 3);
  ASSERT_EQ(qb.gpus, 16);
  for (int l = 0; l < 3; ++l) {
    double sum = 0;
    for (int g = 0; g < 16; ++g) sum += qb.share(l, g);
    EXPECT_NEAR(sum, 1.0, 1e-9);
    EXPECT_LT(qb.max_over_mean(l), none.max_over_mean(l));
  }
  // Layers use different routers (seed derived per layer), so their rows differ.
  EXPECT_NE(none.share(0, 0), none.share(1, 0));
}

TEST(ExpertLoad, JsonRoundTripAndBadDocuments) {
  const auto a = k3::balancing::expert_load_after_balancing(base("qb-hist"), 2, 3, 1);
  const auto back = expert_load_from_json(to_json(a), "load.json");
  EXPECT_EQ(back.gpu_share, a.gpu_share);
  EXPECT_EQ(back.source, a.source);
  auto doc = to_json(a);
  doc["gpu_share"][0][0] = 0.9;  // row no longer sums to 1
  EXPECT_THROW(expert_load_from_json(doc, "load.json"), k3::core::InputError);
  auto extra = to_json(a);
  extra["layer_count"] = 2;
  EXPECT_THROW(expert_load_from_json(extra, "load.json"), k3::core::InputError);
}

TEST(BalancerState, JsonRoundTripAndBadDocuments) {
  const auto s = k3::balancing::balancer_state(base("qb-hist"), 2, 3, 1);
  ASSERT_EQ(s.expert_tokens.size(), 2u);
  ASSERT_EQ(s.expert_tokens[0].size(), 448u);
  // 2 ranks x 512 tokens, top-8: 8,192 token copies per layer sample.
  double copies = 0;
  for (double t : s.expert_tokens[1]) copies += t;
  EXPECT_DOUBLE_EQ(copies, 2 * 512 * 8);
  const auto back = k3::balancing::balancer_state_from_json(to_json(s), "state.json");
  EXPECT_EQ(back.expert_tokens, s.expert_tokens);
  EXPECT_EQ(back.top_k, 8);
  // Mapped onto the placement it gives what the inline path gives.
  const ExpertPlacement placement(448, base("qb-hist").placement);
  EXPECT_EQ(k3::balancing::gpu_shares(back, placement, 2, {}).gpu_share, k3::balancing::expert_load_after_balancing(base("qb-hist"), 2, 3, 1).gpu_share);
  EXPECT_THROW(k3::balancing::gpu_shares(back, placement, 3, {}), k3::core::InputError);  // only 2 samples
  auto short_row = to_json(s);
  short_row["expert_tokens"][0].erase(0);
  EXPECT_THROW(k3::balancing::balancer_state_from_json(short_row, "state.json"), k3::core::InputError);
  auto foreign = to_json(s);
  foreign.erase("format");
  EXPECT_THROW(k3::balancing::balancer_state_from_json(foreign, "state.json"), k3::core::InputError);
  auto negative = to_json(s);
  negative["expert_tokens"][1][5] = -1;
  EXPECT_THROW(k3::balancing::balancer_state_from_json(negative, "state.json"), k3::core::InputError);
}
