// `k3sim plan` through the real binary: bad flags are refused up front, naming the flag and what it takes;
// `k3sim sweep` refuses grid points with the same layout rules plan prunes with.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/run_k3sim.hpp"

namespace k3::test {
namespace {

const std::string kPlanK3 = "plan scenarios/k3-h200-2048.yaml ";

void expect_refused(const std::string& args, const std::string& flag, const std::string& allowed) {
  const auto r = run_k3sim(args);
  EXPECT_EQ(r.exit_status, 2) << args << "\n" << r.out << r.err;
  EXPECT_NE(r.err.find(flag), std::string::npos) << args << "\n" << r.err;
  EXPECT_NE(r.err.find(allowed), std::string::npos) << args << "\n" << r.err;
  EXPECT_EQ(r.err.find("points/s"), std::string::npos) << "simulated before refusing: " << args;
}

TEST(PlanCli, BadFlagsExit2NamingTheFlagAndWhatItTakes) {
  expect_refused(kPlanK3, "--gpus", "--tokens T with --days D");
  expect_refused(kPlanK3 + "--gpus 2048 --tokens 15e12 --days 60", "--gpus", "one goal");
  expect_refused(kPlanK3 + "--tokens 15e12", "--days", "positive number of days");
  expect_refused(kPlanK3 + "--tokens 15e12 --days 60 --gpu tpu", "--gpu", "h200");
  expect_refused(kPlanK3 + "--gpus 0", "--gpus", "positive");
  expect_refused(kPlanK3 + "--gpus 2044", "--gpus", "a multiple of 8");
  expect_refused(kPlanK3 + "--gpus 2048 --objective speed", "--objective", "time");
  expect_refused(kPlanK3 + "--gpus 2048 --fix parallel.tp", "--fix", "key=value");
  expect_refused(kPlanK3 + "--gpus 2048 --fix parallel.tp=2 --grid parallel.tp=1,2", "--fix", "one of --fix");
  expect_refused(kPlanK3 + "--gpus 2048 --grid cluster.nodes=128,256", "--grid", "parallel.*");
  expect_refused(kPlanK3 + "--gpus 2048 --grid parallel.tpp=1,2", "--grid", "parallel");
}


TEST(SweepCli, PointsBreakingALayoutRuleAreRefusedBeforeSimulationWithTheRule) {
  // K3 with EP 1 or 2 on PP 8: its weights, gradients and optimizer state alone exceed HBM, which a simulation
  // would take tens of seconds to find; TP 3 does not divide the GPUs. No point is simulated.
  const auto r = run_k3sim(
      "sweep scenarios/k3-h200-2048.yaml --set network=analytical --set parallel.schedule=1f1b --set parallel.pp=8 "
      "--set communication.node_limit=0 --grid parallel.ep=1,2 --grid parallel.tp=1,3 --jobs 2 --json");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto points = nlohmann::json::parse(r.out).at("points");
  ASSERT_EQ(points.size(), 4u);
  for (const auto& p : points) {
    EXPECT_FALSE(p.at("ran").get<bool>()) << p.dump();
    const auto reason = p.at("reason").get<std::string>();
    EXPECT_NE(reason.find("refused before simulation by the layout rule on"), std::string::npos) << reason;
    const bool tp3 = p.at("settings").at("parallel.tp").get<std::string>() == "3";
    EXPECT_NE(reason.find(tp3 ? "on parallel:" : "on memory:"), std::string::npos) << reason;
  }
}

}  // namespace
}  // namespace k3::test
