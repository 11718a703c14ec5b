#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/run_k3sim.hpp"

using k3::test::run_k3sim;

namespace {
// DeepSeek-V3 on 16 H800 nodes, small batch: a ~1 s simulation.
const char* kSmall =
    "run scenarios/deepseek-v3-h800-2048.yaml --set cluster.nodes=16 --set parallel.pp=4 --set parallel.ep=32 "
    "--set batch.global_batch_seqs=256 --set network=analytical --json";
}  // namespace

TEST(RunCli, JsonCarriesTheContractFields) {
  const auto r = run_k3sim(kSmall);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"step_time_s", "tokens_per_s", "tflops_per_gpu", "mfu", "breakdown", "memory_per_gpu",
                          "fits_in_memory", "links", "assumptions"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_GT(j["step_time_s"].get<double>(), 0);
}

TEST(RunCli, CpuCalibrationProfileIsAcceptedAndChangesTheResult) {
  // The cpu backend measures the CPU references; its efficiency curves replace the datasheet defaults for
  // the op classes it measured, so the predicted step time must move.
  const std::string profile = std::string(K3SIM_BINARY_DIR) + "/run-cli-cpu-profile.json";
  const auto cal = run_k3sim("calibrate --backend cpu --quick --out '" + profile + "'");
  ASSERT_EQ(cal.exit_status, 0) << cal.err;
  const auto base = run_k3sim(kSmall);
  const auto calibrated = run_k3sim(std::string(kSmall) + " --profile '" + profile + "'");
  ASSERT_EQ(base.exit_status, 0) << base.err;
  ASSERT_EQ(calibrated.exit_status, 0) << calibrated.err;
  const double t0 = nlohmann::json::parse(base.out)["step_time_s"].get<double>();
  const double t1 = nlohmann::json::parse(calibrated.out)["step_time_s"].get<double>();
  EXPECT_NE(t0, t1);
  const auto assumptions = nlohmann::json::parse(calibrated.out)["assumptions"].dump();
  EXPECT_NE(assumptions.find("calibration profile"), std::string::npos);
}

TEST(RunCli, BadInputExitsTwoNamingTheKey) {
  const auto missing = run_k3sim("run scenarios/no-such.yaml");
  EXPECT_EQ(missing.exit_status, 2);
  EXPECT_NE(missing.err.find("no such file"), std::string::npos);
  const auto bad = run_k3sim("run scenarios/deepseek-v3-h800-2048.yaml --set parallel.ep=48");
  EXPECT_EQ(bad.exit_status, 2);
  EXPECT_NE(bad.err.find("parallel.ep"), std::string::npos);
  const auto unknown = run_k3sim("run scenarios/deepseek-v3-h800-2048.yaml --set parallel.typo=1");
  EXPECT_EQ(unknown.exit_status, 2);
  EXPECT_NE(unknown.err.find("parallel.typo"), std::string::npos);
  const auto profile = run_k3sim("run scenarios/deepseek-v3-h800-2048.yaml --profile /nonexistent/p.json");
  EXPECT_EQ(profile.exit_status, 2);
}
