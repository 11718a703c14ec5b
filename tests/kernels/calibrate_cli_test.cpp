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

// Two calibrations of one machine, op by op, merged: the merged profile holds every run of both parts
// (each part also ran the two probes: hbm_copy at 2 sizes and gemm_peak at 1 in --quick, so 3 probe runs a
// part) and the curves of both ops, and its curves equal those of the parts where only one part has the op.
TEST(CalibrateCli, MergeJoinsPartsOfOneDevice) {
  const std::string dir = K3SIM_BINARY_DIR;
  const std::string a = dir + "/merge_a.json", b = dir + "/merge_b.json", m = dir + "/merge_ab.json";
  ASSERT_EQ(run_k3sim("calibrate --backend cpu --quick --ops situ_glu --out '" + a + "'").exit_status, 0);
  ASSERT_EQ(run_k3sim("calibrate --backend cpu --quick --ops permute --out '" + b + "'").exit_status, 0);
  const auto r = run_k3sim("calibrate --merge '" + a + "' '" + b + "' --out '" + m + "'");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto pa = k3::cost::CalibrationProfile::load(a), pb = k3::cost::CalibrationProfile::load(b);
  const auto pm = k3::cost::CalibrationProfile::load(m);
  EXPECT_EQ(pm.measurements().size(), pa.measurements().size() + pb.measurements().size());
  EXPECT_TRUE(pm.has("elementwise"));
  EXPECT_TRUE(pm.has("permute"));
  EXPECT_EQ(pm.device().name, pa.device().name);
  // The HBM peak is the rate of the largest copy over both parts; both ran the same sizes, so it is one of the
  // two parts' peaks.
  EXPECT_TRUE(pm.hbm_bytes_per_s() == pa.hbm_bytes_per_s() || pm.hbm_bytes_per_s() == pb.hbm_bytes_per_s());

  EXPECT_EQ(run_k3sim("calibrate --out '" + m + "'").exit_status, 2);  // neither --backend nor --merge
  EXPECT_EQ(run_k3sim("calibrate --backend cpu --merge '" + a + "' --out '" + m + "'").exit_status, 2);
  for (const auto& f : {a, b, m}) std::remove(f.c_str());
}

// The importer's refusals reach the command line as exit 2 with the file or flag named (the file, line and column
// of a bad cell: tests/cost/kernel_tables_test.cpp).
TEST(CalibrateCli, KernelTableImportRefusesBadInputWithStatus2) {
  const std::string out = std::string(K3SIM_BINARY_DIR) + "/never_tables.json";
  const auto no_db = run_k3sim("calibrate --import-kernel-tables /nonexistent/db --gpu H200-SXM --out '" + out + "'");
  EXPECT_EQ(no_db.exit_status, 2);
  EXPECT_NE(no_db.err.find("/nonexistent/db"), std::string::npos);
  const auto gpu = run_k3sim("calibrate --import-kernel-tables /nonexistent/db --gpu TPU-v5 --out '" + out + "'");
  EXPECT_EQ(gpu.exit_status, 2);
  EXPECT_NE(gpu.err.find("TPU-v5"), std::string::npos);
  EXPECT_EQ(run_k3sim("calibrate --import-kernel-tables /nonexistent/db --out '" + out + "'").exit_status, 2);
  const auto show = run_k3sim("profile show /nonexistent/t.json");
  EXPECT_EQ(show.exit_status, 2);
  EXPECT_NE(show.err.find("/nonexistent/t.json"), std::string::npos);
}
