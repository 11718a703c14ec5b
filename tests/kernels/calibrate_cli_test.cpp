// `k3sim calibrate` and `k3sim profile diff` through the real binary.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>

#include "sim/cost/calibration_profile.hpp"
#include "tests/support/run_k3sim.hpp"

using k3::test::run_k3sim;

TEST(CalibrateCli, CpuBackendWritesAProfileTheCostModelLoads) {
  const std::string out = std::string(K3SIM_BINARY_DIR) + "/cli_cpu_profile.json";
  const auto r = run_k3sim("calibrate --backend cpu --quick --ops situ_glu,permute,gemm --out '" + out + "'");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.out.find("GB/s"), std::string::npos);
  const auto p = k3::cost::CalibrationProfile::load(out);
  EXPECT_TRUE(p.has("elementwise"));
  EXPECT_TRUE(p.has("permute"));
  EXPECT_TRUE(p.has("gemm_bf16"));
  EXPECT_EQ(p.curve("gemm_bf16").peak, "gemm_fp32");  // the cpu backend says what it measured

  const auto d = run_k3sim("profile diff '" + out + "' '" + out + "' --json");
  ASSERT_EQ(d.exit_status, 0) << d.err;
  const auto j = nlohmann::json::parse(d.out);
  EXPECT_DOUBLE_EQ(j["peaks"][0]["ratio_b_over_a"].get<double>(), 1.0);
  const auto text = run_k3sim("profile diff '" + out + "' '" + out + "'");
  EXPECT_NE(text.out.find("1.000x"), std::string::npos);
  std::remove(out.c_str());
}

TEST(CalibrateCli, BadInputExitsWithStatus2) {
  EXPECT_EQ(run_k3sim("calibrate --backend tpu --out x.json").exit_status, 2);
  EXPECT_EQ(run_k3sim("calibrate --backend cpu --quick --ops bogus --out /tmp/k3_never.json").exit_status, 2);
  const auto missing = run_k3sim("profile diff /nonexistent/a.json /nonexistent/b.json");
  EXPECT_EQ(missing.exit_status, 2);
  EXPECT_NE(missing.err.find("/nonexistent/a.json"), std::string::npos);
}
