// The calibration profile the cost model reads: interpolation, clamping, presence, load/save and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "sim/cost/calibration_profile.hpp"
#include "core/error.hpp"

using k3::core::InputError;
using k3::cost::CalibrationProfile;
using k3::cost::EfficiencyCurve;
using k3::cost::WorkUnit;

namespace {

CalibrationProfile sample() {
  CalibrationProfile p;
  p.set_device({"cuda", "NVIDIA H200", "580.00", "13.0", "9.0", 1980, 3201, 141e9, 1});
  p.set_created_utc("2026-01-01T00:00:00Z");
  p.set_hbm_bytes_per_s(4.0e12);
  p.set_gemm_flops_per_s("bf16", 8.0e14);
  // gemm_bf16: 10% at 1e6 FLOPs, 50% at 1e8, 80% at 1e10.
  p.set_curve("gemm_bf16", EfficiencyCurve{WorkUnit::kFlops, "gemm_bf16", {{1e6, 0.1}, {1e8, 0.5}, {1e10, 0.8}}});
  p.set_curve("elementwise", EfficiencyCurve{WorkUnit::kBytes, "hbm", {{1e3, 0.01}, {1e9, 0.9}}});
  return p;
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = std::string(K3SIM_BINARY_DIR) + "/" + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST(CalibrationProfile, LogInterpolatesBetweenPoints) {
  const auto p = sample();
  // 1e7 is halfway between 1e6 and 1e8 in log space: 0.1 + 0.5 * (0.5 - 0.1) = 0.3.
  EXPECT_NEAR(p.efficiency("gemm_bf16", 1e7), 0.3, 1e-12);
  // 1e9 is halfway between 1e8 and 1e10: 0.65. Achieved rate 0.65 * 8e14 = 5.2e14 FLOP/s.
  EXPECT_NEAR(p.efficiency("gemm_bf16", 1e9), 0.65, 1e-12);
  EXPECT_NEAR(p.achieved_rate("gemm_bf16", 1e9), 5.2e14, 1e3);
  // Measured points are reproduced exactly.
  EXPECT_DOUBLE_EQ(p.efficiency("gemm_bf16", 1e8), 0.5);
}

TEST(CalibrationProfile, ClampsOutsideTheMeasuredRange) {
  const auto p = sample();
  EXPECT_DOUBLE_EQ(p.efficiency("gemm_bf16", 10.0), 0.1);
  EXPECT_DOUBLE_EQ(p.efficiency("gemm_bf16", 0.0), 0.1);
  EXPECT_DOUBLE_EQ(p.efficiency("gemm_bf16", 1e15), 0.8);
  // A byte-counted class reads the HBM peak: 0.9 * 4e12 = 3.6e12 B/s.
  EXPECT_DOUBLE_EQ(p.achieved_rate("elementwise", 1e12), 3.6e12);
}

TEST(CalibrationProfile, PresenceAndMissingClasses) {
  const auto p = sample();
  EXPECT_TRUE(p.has("gemm_bf16"));
  EXPECT_FALSE(p.has("kda"));
  EXPECT_TRUE(p.measured_on_gpu());
  EXPECT_THROW((void)p.efficiency("kda", 1e9), InputError);
  EXPECT_THROW((void)p.gemm_flops_per_s("fp8"), InputError);
}

TEST(CalibrationProfile, SaveLoadRoundTrip) {
  const auto p = sample();
  const std::string path = std::string(K3SIM_BINARY_DIR) + "/profile_roundtrip.json";
  p.save(path);
  const auto q = CalibrationProfile::load(path);
  EXPECT_EQ(q.device().name, "NVIDIA H200");
  EXPECT_EQ(q.device().device_count, 1);
  EXPECT_DOUBLE_EQ(q.hbm_bytes_per_s(), 4.0e12);
  EXPECT_DOUBLE_EQ(q.gemm_flops_per_s("bf16"), 8.0e14);
  EXPECT_NEAR(q.efficiency("gemm_bf16", 1e7), 0.3, 1e-12);
  EXPECT_EQ(q.op_classes(), (std::vector<std::string>{"elementwise", "gemm_bf16"}));
  std::remove(path.c_str());
}

TEST(CalibrationProfile, BadInputNamesFileAndKey) {
  auto j = sample().to_json();
  j["op_classes"]["gemm_bf16"]["points"][1]["work"] = 1e5;  // not increasing
  const std::string path = write_temp("profile_bad_points.json", j.dump());
  try {
    (void)CalibrationProfile::load(path);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, path);
    EXPECT_EQ(e.where().key, "op_classes.gemm_bf16.points[1].work");
  }
  auto k = sample().to_json();
  k["op_classes"]["gemm_bf16"]["peak"] = "gemm_fp8";  // no fp8 peak measured
  try {
    (void)CalibrationProfile::from_json(k, "x.json");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().key, "op_classes.gemm_bf16.peak");
  }
  auto m = sample().to_json();
  m["peaks"].erase("hbm_bytes_per_s");
  EXPECT_THROW((void)CalibrationProfile::from_json(m, "x.json"), InputError);
  const std::string broken = write_temp("profile_broken.json", "{\"format\": ");
  EXPECT_THROW((void)CalibrationProfile::load(broken), InputError);
  EXPECT_THROW((void)CalibrationProfile::load("/nonexistent/profile.json"), InputError);
}
