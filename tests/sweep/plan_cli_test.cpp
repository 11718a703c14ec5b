// `k3sim plan` through the real binary: bad flags are refused up front, naming the flag and what it takes.
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
  expect_refused(kPlanK3, "--gpus", "required");
  expect_refused(kPlanK3 + "--gpus 0", "--gpus", "positive");
  expect_refused(kPlanK3 + "--gpus 2044", "--gpus", "a multiple of 8");
  expect_refused(kPlanK3 + "--gpus 2048 --objective speed", "--objective", "time");
  expect_refused(kPlanK3 + "--gpus 2048 --fix parallel.tp", "--fix", "key=value");
  expect_refused(kPlanK3 + "--gpus 2048 --fix parallel.tp=2 --grid parallel.tp=1,2", "--fix", "one of --fix");
  expect_refused(kPlanK3 + "--gpus 2048 --grid cluster.nodes=128,256", "--grid", "parallel.*");
  expect_refused(kPlanK3 + "--gpus 2048 --grid parallel.tpp=1,2", "--grid", "parallel");
}

}  // namespace
}  // namespace k3::test
