// The balance section and balance JSON come from one BalanceRun: every keyed number in the HTML equals the
// JSON value at its pointer; the K3 vs top-8-of-448 comparison stays under the 5 MB report budget.
#include <gtest/gtest.h>

#include "tests/reports/html_scan.hpp"

#include <cstdlib>

#include "reports/sections/balance.hpp"

using namespace k3;

namespace {
balancing::BalanceConfig small_config(const routing::MoeRoutingShape& shape, const char* balancer) {
  balancing::BalanceConfig cfg;
  cfg.shape = shape;
  cfg.balancer.kind = balancer;
  cfg.steps = 4;
  cfg.ranks = 2;
  cfg.tokens_per_rank = 128;
  cfg.placement.gpus = 16;
  cfg.router.seed = 3;
  return cfg;
}
}  // namespace

TEST(BalanceSection, EveryKeyedNumberEqualsTheJson) {
  const std::vector<balancing::BalanceConfig> configs{small_config({"k3", 896, 16, 3584, 92}, "qb-hist"),
                                                    small_config({"k3-448", 448, 8, 7168, 92}, "sign")};
  const auto runs = balancing::run_balance_all(configs, 1);
  reports::Report report("balance");
  reports::add_balance_section(report, runs);
  const std::string html = report.html();
  const nlohmann::json json = reports::balance_json(runs);

  int matched = 0;
  for (const auto& [key, shown] : k3::test::keyed_numbers(html)) {
    const nlohmann::json::json_pointer ptr(key);
    ASSERT_TRUE(json.contains(ptr)) << key;
    EXPECT_EQ(shown, json.at(ptr).get<double>()) << key;
    ++matched;
  }
  // Per run: tokens, floor, steady mean, p99, all-reduce bytes (5), plus steps_to_floor when reached.
  int expected = 0;
  for (const auto& r : runs) expected += 5 + (r.steps_to_floor ? 1 : 0);
  EXPECT_EQ(matched, expected);
  EXPECT_EQ(json["runs"].size(), 2u);
  EXPECT_EQ(json["runs"][0]["curve"].size(), 4u);
  // Three charts: MaxVio, GPU max/mean, sorted expert load.
  EXPECT_EQ(report.sections().front().charts(), 3);
}

TEST(BalanceSection, ComparisonOfDefaultScenarioStaysUnderFiveMegabytes) {
  // Same shape of data as `balance` on its defaults for K3 and top-8-of-448 under two balancers: 100 steps,
  // 896 and 448 expert loads. The values are a closed-form stand-in; size depends only on the counts.
  std::vector<balancing::BalanceRun> runs;
  for (const int experts : {896, 448}) {
    for (const char* balancer : {"qb-hist", "sign"}) {
      balancing::BalanceRun r;
      r.model = experts == 896 ? "k3" : "k3-448";
      r.balancer = balancer;
      r.tokens_per_step = 8192;
      r.noise_floor = 0.3;
      r.steps_to_floor = 5;
      for (int s = 0; s < 100; ++s) r.curve.push_back({s, 0.3 + 10.0 / (1 + s), 1.1 + 1.0 / (1 + s), 0.01, 0.005});
      for (int e = 0; e < experts; ++e) r.last_expert_load.push_back(100.0 + e % 37);
      runs.push_back(std::move(r));
    }
  }
  reports::Report report("K3 vs top-8-of-448");
  reports::add_balance_section(report, runs);
  const std::size_t bytes = report.html().size();
  EXPECT_LT(bytes, 5'000'000u);
  // And not trivially small: four 100-point curves twice plus 2 x (896 + 448) expert points are in it.
  EXPECT_GT(bytes, 200'000u);
}
