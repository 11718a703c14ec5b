// Up-front size limit of a step simulation (sim/input/size_limits.hpp): clusters up to 100,000 GPUs are
// estimated within the limits (16 GiB, 600 s) and simulated; larger ones are refused before the topology
// is built, with the estimate and the limit in the message.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "sim/input/size_limits.hpp"
#include "tests/support/run_k3sim.hpp"

namespace {

using namespace k3;

TEST(SizeLimits, EstimateGrowsWithTheSquareOfTheGpuCount) {
  // analytical: 100e6 B + 1.3 B x 98,304^2 = 100e6 + 12.563e9 = 12.663e9 B;
  //             20 s + 1.6e-8 s x 98,304^2 = 20 + 154.6 = 174.6 s (measured: 12.2 GB, 168.7 s).
  const auto e = input::estimate_step_size(98304, net::network_model("analytical", {}));
  EXPECT_NEAR(e.memory_bytes, 12.663e9, 0.001e9);
  EXPECT_NEAR(e.seconds, 174.6, 0.1);
}

TEST(SizeLimits, HundredThousandGpusAreWithinTheLimits) {
  input::Scenario sc;
  sc.source = "s.yaml";
  sc.network = &net::network_model("analytical", {});
  // 1.3 x 1e10 + 1e8 = 13.1e9 B < 16 GiB = 17.18e9 B; 20 + 160 = 180 s < 600 s.
  EXPECT_NO_THROW(input::check_size_limits(sc, 100000));
}

TEST(SizeLimits, LargerClustersAreRefusedWithTheEstimate) {
  input::Scenario sc;
  sc.source = "s.yaml";
  sc.nodes = 16384;
  sc.network = &net::network_model("analytical", {});
  // 131,072 GPUs: 1.3 x 131072^2 + 1e8 = 22.43e9 B = 20.9 GiB > 16 GiB. The largest count within 16 GiB:
  // sqrt((17.18e9 - 1e8) / 1.3) = 114,622 GPUs (time allows sqrt(580 / 1.6e-8) = 190,394).
  try {
    input::check_size_limits(sc, 131072);
    FAIL() << "131,072 GPUs accepted";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().key, "cluster.nodes");
    const std::string what = e.what();
    EXPECT_NE(what.find("estimated 20.9 GiB"), std::string::npos) << what;
    EXPECT_NE(what.find("limit of 16.0 GiB and 600 s"), std::string::npos) << what;
    EXPECT_NE(what.find("at most 114622 GPUs"), std::string::npos) << what;
  }
}

// Through the real binary: refused up front (exit 2, one line) rather than building a 131,072-GPU topology.
TEST(SizeLimits, RunRefusesAnOversizedClusterUpFront) {
  const auto r = test::run_k3sim(
      "run scenarios/k3-h200-2048.yaml --set network=analytical "
      "--set cluster.topology=tests/invariants/h200-rail-radix512.yaml --set cluster.nodes=16384");
  EXPECT_EQ(r.exit_status, 2) << r.err;
  EXPECT_NE(r.err.find("k3-h200-2048.yaml"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cluster.nodes"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("131072 GPUs are too many"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("at most 114622 GPUs"), std::string::npos) << r.err;
}

}  // namespace
