#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/run_k3sim.hpp"

using k3::test::run_k3sim;

namespace {
const char* kScenario = "serve scenarios/serving/deepseek-v3-h100-96-serving.yaml --set workload.duration_s=20 --set workload.warmup_s=5";
}

TEST(ServeCli, JsonCarriesThroughputLatenciesAndGoodput) {
  const auto r = run_k3sim(std::string(kScenario) + " --json");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"throughput", "ttft", "tpot", "goodput_requests_per_s", "kv_utilisation", "phases"})
    EXPECT_TRUE(j.contains(key)) << key;
  for (const char* p : {"p50_s", "p90_s", "p99_s"}) {
    EXPECT_GT(j["ttft"][p].get<double>(), 0) << p;
    EXPECT_GT(j["tpot"][p].get<double>(), 0) << p;
  }
  EXPECT_GT(j["throughput"]["output_tokens_per_s_per_node"].get<double>(), 0);
}

TEST(ServeCli, RatesGiveTheCurve) {
  const auto r = run_k3sim(std::string(kScenario) + " --rates 5,20");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.out.find("rate(req/s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("20.000"), std::string::npos) << r.out;
}

TEST(ServeCli, BadInputExitsTwoNamingTheProblem) {
  auto r = run_k3sim("serve scenarios/serving/deepseek-v3-h100-96-serving.yaml --set deployment.decode.nodes=0");
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("deployment.decode.nodes"), std::string::npos) << r.err;
  r = run_k3sim("serve scenarios/serving/deepseek-v3-h100-96-serving.yaml --rates fast");
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("--rates"), std::string::npos) << r.err;
  r = run_k3sim("serve no-such-file.yaml");
  EXPECT_EQ(r.exit_status, 2);
}

TEST(ServeCli, CompareTakesServingScenarios) {
  const auto r = run_k3sim(
      "compare scenarios/serving/deepseek-v3-h100-96-serving.yaml scenarios/serving/deepseek-v3-h100-96-serving.yaml "
      "--set workload.duration_s=10 --set workload.warmup_s=2 --json");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.at("results").size(), 2u);
  for (const auto& m : j.at("metrics")) {
    // The same scenario twice: every delta is zero.
    EXPECT_DOUBLE_EQ(m.at("values")[1].value("delta_fraction", 0.0), 0.0) << m.at("label");
  }
  const auto mixed = run_k3sim("compare scenarios/serving/deepseek-v3-h100-96-serving.yaml scenarios/k3-h200-2048.yaml");
  EXPECT_EQ(mixed.exit_status, 2);
  EXPECT_NE(mixed.err.find("cannot be compared together"), std::string::npos) << mixed.err;
}

TEST(ServeCli, SearchRatioMarksTheBestSplit) {
  const auto r = run_k3sim("serve scenarios/serving/deepseek-v3-h100-96-serving.yaml --set workload.duration_s=10 "
                           "--set workload.warmup_s=2 --search-ratio -j 2");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.out.find("<- best"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("does not fit"), std::string::npos) << r.out;
}
