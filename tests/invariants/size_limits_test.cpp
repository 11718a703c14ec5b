// Up-front size limit of a step simulation (sim/input/size_limits.hpp): the estimate grows linearly with the GPU
// count (issue 23), so 131,072 GPUs are simulated on either network, and only clusters whose estimate exceeds
// the limits (16 GiB, 600 s) are refused, before the topology is built, with the estimate and the limit in the
// message.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "sim/input/size_limits.hpp"
#include "tests/support/run_k3sim.hpp"

namespace {

using namespace k3;

TEST(SizeLimits, EstimateGrowsLinearlyWithTheGpuCount) {
  // analytical: 100e6 B + 2e3 B x 98,304 = 100e6 + 196.608e6 = 296.608e6 B; 5 s + 2e-5 s x 98,304 = 6.966 s
  // (measured: 195 MB, 2.2 s).
  const auto& analytical = net::network_model("analytical", {});
  const auto e = input::estimate_step_size(98304, analytical);
  EXPECT_NEAR(e.memory_bytes, 296.608e6, 0.001e6);
  EXPECT_NEAR(e.seconds, 6.966, 0.001);
  // Doubling the GPUs adds what the first 98,304 added: 2e3 B and 2e-5 s per GPU.
  const auto twice = input::estimate_step_size(2 * 98304, analytical);
  EXPECT_NEAR(twice.memory_bytes - e.memory_bytes, 196.608e6, 0.001e6);
  EXPECT_NEAR(twice.seconds - e.seconds, 1.966, 0.001);
}

TEST(SizeLimits, HundredThirtyOneThousandGpusAreWithinTheLimitsOnEitherNetwork) {
  input::Scenario sc;
  sc.source = "s.yaml";
  // analytical: 100e6 + 2e3 x 131,072 = 362e6 B, 5 + 2.6 = 7.6 s; flow: 250e6 + 262e6 = 512e6 B, 30 + 2.6 = 32.6 s.
  sc.network = &net::network_model("analytical", {});
  EXPECT_NO_THROW(input::check_size_limits(sc, 131072));
  sc.network = &net::network_model("flow", {});
  EXPECT_NO_THROW(input::check_size_limits(sc, 131072));
}

TEST(SizeLimits, LargerClustersAreRefusedWithTheEstimate) {
  input::Scenario sc;
  sc.source = "s.yaml";
  sc.nodes = 1250000;
  sc.network = &net::network_model("analytical", {});
  // 10,000,000 GPUs: 100e6 + 2e3 x 1e7 = 20.1e9 B = 18.7 GiB > 16 GiB; 5 + 200 = 205 s. The largest count within
  // 16 GiB: (17.180e9 - 1e8) / 2e3 = 8,539,934 GPUs (time allows (600 - 5) / 2e-5 = 29,750,000).
  try {
    input::check_size_limits(sc, 10000000);
    FAIL() << "10,000,000 GPUs accepted";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().key, "cluster.nodes");
    const std::string what = e.what();
    EXPECT_NE(what.find("estimated 18.7 GiB and 205 s"), std::string::npos) << what;
    EXPECT_NE(what.find("limit of 16.0 GiB and 600 s"), std::string::npos) << what;
    EXPECT_NE(what.find("at most 8539934 GPUs"), std::string::npos) << what;
  }
}

// Through the real binary: refused up front (exit 2, one line) rather than building the topology. 131,072 NVL72
// racks (on 512-port switches: three tiers reach 33.5M NICs) hold 9,437,184 GPUs:
// 100e6 + 2e3 x 9,437,184 = 18.97e9 B = 17.7 GiB.
TEST(SizeLimits, RunRefusesAnOversizedClusterUpFront) {
  const auto r = test::run_k3sim(
      "run scenarios/k3-h200-2048.yaml --set network=analytical --set cluster.topology=gb200-nvl72 --set cluster.fabric.radix=512 "
      "--set cluster.nodes=131072");
  EXPECT_EQ(r.exit_status, 2) << r.err;
  EXPECT_NE(r.err.find("k3-h200-2048.yaml"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cluster.nodes"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("9437184 GPUs are too many"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("estimated 17.7 GiB"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("at most 8539934 GPUs"), std::string::npos) << r.err;
}

}  // namespace
