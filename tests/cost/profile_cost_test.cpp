// A calibration profile in the cost model: op times from the profile's own measured peak, the classes left
// out, and the device check; every expected time derived by hand.
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "sim/cost/cost_model.hpp"
#include "tests/cost/gemm_op.hpp"
#include "tests/support/run_k3sim.hpp"

using namespace k3::cost;

namespace {

// H100 SXM datasheet: 989 TFLOP/s BF16, 3.35 TB/s. The profile below measured less than both.
const DeviceModel kH100{"H100-SXM", 989e12, 1979e12, 3.35e12, 132, "test"};

CalibrationProfile h100_profile() {
  CalibrationProfile p;
  p.set_device({"cuda", "NVIDIA H100 80GB HBM3", "550.54", "12.4", "9.0", 1980, 2619, 80e9, 1});
  p.set_created_utc("2026-01-01T00:00:00Z");
  p.set_hbm_bytes_per_s(3.0e12);         // measured copy bandwidth
  p.set_gemm_flops_per_s("bf16", 800e12);  // measured best BF16 GEMM
  // GEMM-class efficiency 0.5 of the measured peak at every size; elementwise 0.9 of the measured HBM.
  p.set_curve("gemm_bf16", EfficiencyCurve{WorkUnit::kFlops, "gemm_bf16", {{1e9, 0.5}, {1e13, 0.5}}});
  p.set_curve("elementwise", EfficiencyCurve{WorkUnit::kBytes, "hbm", {{1e6, 0.9}, {1e10, 0.9}}});
  // The harness's attention kernel is not FlashAttention: a profile that still carries it is not read.
  p.set_curve("attention", EfficiencyCurve{WorkUnit::kFlops, "gemm_bf16", {{1e9, 0.01}}});
  return p;
}

}  // namespace

TEST(ProfileCost, GemmTimeIsEfficiencyTimesTheProfilesOwnMeasuredPeak) {
  const auto profile = h100_profile();
  k3::core::Provenance prov;
  const OpCostModel c(kH100, &profile, Precision::bf16, {}, prov);
  // 2 x 8192^3 = 1,099,511,627,776 FLOPs at 0.5 x 800 TFLOP/s (measured, not the 989 datasheet peak) =
  // 4e14 FLOP/s: 2.74877906944 ms. No tile/wave quantization on top: the measured curve already holds it.
  const auto t = c.time(k3::test::gemm_op(8192, 8192, 8192));
  EXPECT_NEAR(t.fwd, 1099511627776.0 / 4e14, 1e-15);
  EXPECT_NEAR(t.fwd, 2.74877906944e-3, 1e-15);
  // Memory-bound: 3e9 bytes at 0.9 x 3.0 TB/s measured = 2.7e12 B/s: 1.1111 ms.
  k3::model::Op add;
  add.name = "residual";
  add.kind = k3::model::OpKind::Elementwise;
  add.read_bytes = 2e9;
  add.write_bytes = 1e9;
  EXPECT_NEAR(c.time(add).fwd, 3e9 / 2.7e12, 1e-15);
  // The profile's measurement spread is a registry entry the band moves.
  EXPECT_TRUE(prov.has("profile.rate_scale"));
}

TEST(ProfileCost, NonProductionKernelClassesAreNotRead) {
  const auto profile = h100_profile();
  k3::core::Provenance with_profile, without;
  const OpCostModel c(kH100, &profile, Precision::bf16, {}, with_profile);
  const OpCostModel d(kH100, nullptr, Precision::bf16, {}, without);
  k3::model::Op attn;
  attn.name = "attention";
  attn.kind = k3::model::OpKind::AttentionCore;
  attn.fwd_flops = 1e12;
  // The default: 60% of the 989 TFLOP/s datasheet peak, not the profile's 1%.
  EXPECT_NEAR(c.time(attn).fwd, 1e12 / (0.60 * 989e12), 1e-15);
  EXPECT_EQ(c.time(attn).fwd, d.time(attn).fwd);
  EXPECT_FALSE(production_kernel_class("attention"));
  EXPECT_FALSE(production_kernel_class("kda"));
  EXPECT_TRUE(production_kernel_class("gemm_bf16"));
}

TEST(ProfileCost, ProfileFromAnotherDeviceTypeIsRefused) {
  const auto h100 = h100_profile();
  EXPECT_NO_THROW(check_profile_device(h100, "H100-SXM", "p.json"));
  try {
    check_profile_device(h100, "H200-SXM", "p.json");
    FAIL() << "an H100 profile must be refused for an H200 run";
  } catch (const k3::core::InputError& e) {
    EXPECT_EQ(e.where().file, "p.json");
    const std::string what = e.what();
    EXPECT_NE(what.find("NVIDIA H100 80GB HBM3"), std::string::npos) << what;
    EXPECT_NE(what.find("H200-SXM"), std::string::npos) << what;
    EXPECT_NE(what.find("--profile-any-device"), std::string::npos) << what;
  }
  // The family must be a whole word: a GH100 (Grace Hopper) profile is not an H100 one.
  auto gh = h100;
  gh.set_device({"cuda", "NVIDIA GH100 120GB", "", "", "9.0", 0, 0, 96e9, 1});
  EXPECT_THROW(check_profile_device(gh, "H100-SXM", "p.json"), k3::core::InputError);
  // A CPU profile tests the calibration path; it never prices a GPU.
  auto cpu = h100;
  cpu.set_device({"cpu", "H100 lookalike CPU", "", "", "", 0, 0, 64e9, 1});
  EXPECT_THROW(check_profile_device(cpu, "H100-SXM", "p.json"), k3::core::InputError);
}

TEST(ProfileCost, RunRefusesAnH100ProfileForAnH200ScenarioWithExitTwo) {
  const std::string path = std::string(K3SIM_BINARY_DIR) + "/profile-cost-h100.json";
  h100_profile().save(path);
  const std::string run = "run scenarios/k3-h200-2048.yaml --set network=analytical --samples 0 --json --profile '" + path + "'";
  const auto refused = k3::test::run_k3sim(run);
  EXPECT_EQ(refused.exit_status, 2) << refused.err;
  EXPECT_NE(refused.err.find("NVIDIA H100 80GB HBM3"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("H200-SXM"), std::string::npos) << refused.err;
  const auto forced = k3::test::run_k3sim(run + " --profile-any-device");
  EXPECT_EQ(forced.exit_status, 0) << forced.err;
}
