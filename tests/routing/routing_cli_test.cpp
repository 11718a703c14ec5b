#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/run_k3sim.hpp"

using k3::test::run_k3sim;

TEST(TrafficCli, JsonNamesAndLatentClaim) {
  const auto r = run_k3sim("traffic --ep 64 --gpus-per-node 8 --tokens-per-gpu 128 --json");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["models"].size(), 2u);
  EXPECT_EQ(doc["models"][0]["model"], "k3");
  EXPECT_EQ(doc["models"][1]["model"], "k3-448");
  for (const auto& m : doc["models"]) {
    EXPECT_DOUBLE_EQ(m["elements_per_token"].get<double>(), 57344.0);  // 16 x 3584 = 8 x 7168
    for (const char* cls : {"nvlink", "nic", "fabric"}) EXPECT_TRUE(m["bytes_per_token"][cls].is_number());
    EXPECT_GT(m["dedup_factor"]["gpu"].get<double>(), 1.0);
    EXPECT_GE(m["max_over_mean_gpu_bytes"].get<double>(), 1.0);
  }
  // top-16 of 896 lands on more experts per GPU, so it dedups more than top-8 of 448.
  EXPECT_GT(doc["models"][0]["dedup_factor"]["node"].get<double>(), doc["models"][1]["dedup_factor"]["node"].get<double>());
}

// README's form: the models as one comma-separated word give the same output as two words.
TEST(TrafficCli, CommaSeparatedModelsAreTheSameAsSeparateWords) {
  const auto commas = run_k3sim("traffic deepseek-v3,k3 --ep 16 --tokens-per-gpu 64 --json");
  const auto words = run_k3sim("traffic deepseek-v3 k3 --ep 16 --tokens-per-gpu 64 --json");
  ASSERT_EQ(commas.exit_status, 0) << commas.err;
  EXPECT_EQ(commas.out, words.out);
  EXPECT_EQ(nlohmann::json::parse(commas.out)["models"].size(), 2u);
}

TEST(BalanceCli, JsonRunsCsvAndSameSeedSameOutput) {
  const std::string args = "balance --model k3-448 --balancer qb-hist,sign --steps 4 --ranks 2 --tokens-per-rank 256";
  const std::string csv = std::string(K3SIM_BINARY_DIR) + "/routing-cli-curve.csv";
  const auto a = run_k3sim(args + " --json --csv '" + csv + "'");
  ASSERT_EQ(a.exit_status, 0) << a.err;
  const auto doc = nlohmann::json::parse(a.out);
  ASSERT_EQ(doc["runs"].size(), 2u);
  for (const auto& run : doc["runs"]) {
    for (const char* key : {"model", "balancer", "steps_to_floor", "steady_maxvio_mean", "noise_floor",
                            "allreduce_bytes_per_layer", "curve"})
      EXPECT_TRUE(run.contains(key)) << key;
    EXPECT_EQ(run["curve"].size(), 4u);
  }
  EXPECT_EQ(doc["runs"][0]["balancer"], "qb-hist");
  EXPECT_DOUBLE_EQ(doc["runs"][0]["allreduce_bytes_per_layer"].get<double>(), 448.0 * 1000 * 4);
  const auto csv_text = k3::test::slurp(csv);
  EXPECT_EQ(std::count(csv_text.begin(), csv_text.end(), '\n'), 1 + 2 * 4);  // header + 2 runs x 4 steps
  EXPECT_EQ(run_k3sim(args + " --json").out, a.out);
  EXPECT_NE(run_k3sim(args + " --json --seed 2").out, a.out);
}

TEST(RoutingCli, BadInputIsExitTwoWithOneMessage) {
  for (const char* args : {"traffic --ep 48", "traffic --ep 64 --node-limit 9", "traffic --ep 64 --algorithm ring",
                           "traffic k9 --ep 64", "balance --bins 1 --steps 1", "balance --balancer qb-magic --steps 1",
                           "balance --ep 48 --steps 1", "balance --model k3,nope --steps 1", "balance --steps 0"}) {
    const auto r = run_k3sim(args);
    EXPECT_EQ(r.exit_status, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find("error"), std::string::npos) << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
  }
}
