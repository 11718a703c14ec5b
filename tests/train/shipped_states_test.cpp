// The balancer states shipped in scenarios/states/ are what the command in their README writes. Label
// release-only: 20 balancing steps of 65,536 tokens for two models take ~40 s in Release, several minutes under
// the sanitizers, and the sanitizer build runs the same code in the inline-balancer tests of test_run_cli.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/run_k3sim.hpp"

using k3::test::run_k3sim;

TEST(ShippedStates, AreWhatTheirCommandWrites) {
  // scenarios/states/README.md gives the command behind each shipped state; rerunning it must give the file.
  for (const std::string model : {"k3", "k3-448"}) {
    const std::string out = std::string(K3SIM_BINARY_DIR) + "/state-" + model + ".json";
    const auto r = run_k3sim("balance --model " + model + " --balancer qb-hist --steps 20 --tokens-per-rank 8192 "
                             "--rank-skew 0 --layers 4 --seed 1 --write-state '" + out + "'");
    ASSERT_EQ(r.exit_status, 0) << r.err;
    const auto written = nlohmann::json::parse(k3::test::slurp(out));
    const auto shipped = nlohmann::json::parse(
        k3::test::slurp(std::string(K3SIM_SOURCE_DIR) + "/scenarios/states/" + model + "-qb-hist-20.json"));
    EXPECT_EQ(written, shipped) << model;
  }
}

