// `k3sim plan` through the real binary: bad flags are refused up front, naming the flag and what it takes;
// the CSV and the best layout it writes;
// `k3sim sweep` refuses grid points with the same layout rules plan prunes with.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sys/wait.h>
#include <unistd.h>
#include <string>
#include <vector>

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
  const std::string serving = "plan scenarios/serving/deepseek-v3-h100-96-serving.yaml ";
  struct Case {
    std::string args, flag, allowed;
  };
  const std::vector<Case> cases{
      {kPlanK3, "--gpus", "--tokens T with --days D"},
      {kPlanK3 + "--gpus 2048 --tokens 15e12 --days 60", "--gpus", "one goal"},
      {kPlanK3 + "--tokens 15e12", "--days", "positive number of days"},
      {kPlanK3 + "--tokens 15e12 --days 60 --gpu tpu", "--gpu", "h200"},
      // Issue 46: sized on goodput, the run's timeline must fit the clock.
      {kPlanK3 + "--tokens 15e12 --days 200 --set reliability.restart_s=600", "--days", "at most 100"},
      {kPlanK3 + "--gpus 0", "--gpus", "positive"},
      {kPlanK3 + "--gpus 2044", "--gpus", "a multiple of 8"},
      {kPlanK3 + "--gpus 2048 --objective speed", "--objective", "time"},
      {kPlanK3 + "--gpus 2048 --fix parallel.tp", "--fix", "key=value"},
      {kPlanK3 + "--gpus 2048 --fix parallel.tp=2 --grid parallel.tp=1,2", "--fix", "one of --fix"},
      {kPlanK3 + "--gpus 2048 --grid cluster.nodes=128,256", "--grid", "parallel.*"},
      {kPlanK3 + "--gpus 2048 --grid parallel.tpp=1,2", "--grid", "parallel"},
      // The serving goal: one goal at a time, its own flags only, a serving scenario.
      {serving + "--serve 8 --gpus 16", "--serve", "one goal"},
      {serving + "--serve 8 --fix parallel.tp=2", "--fix", "with --serve"},
      {serving + "--serve 0", "--serve", "positive arrival rate"},
      {serving + "--serve 8 --attainment 2", "--attainment", "(0, 1]"},
      {kPlanK3 + "--gpus 2048 --ttft 2", "--ttft", "--serve RATE"},
      {kPlanK3 + "--serve 8", "deployment", "a serving scenario"},
  };
  for (const auto& c : cases) expect_refused(c.args, c.flag, c.allowed);
}

TEST(PlanCli, WritesTheRankingAsCsvAndTheBestLayoutAsAScenarioRunReproduces) {
  // Qwen3-235B on 256 H100 with every key but PP fixed: a handful of candidates, milliseconds each.
  const std::string dir = std::string(K3SIM_BINARY_DIR) + "/plan-cli-" + std::to_string(::getpid());
  const auto r = run_k3sim("plan scenarios/qwen3-235b-h100-256.yaml --gpus 256 --top 2 --samples 8 --fix parallel.tp=2 "
                           "--fix parallel.ep=8 --fix parallel.schedule=1f1b --fix parallel.vpp=1 --fix parallel.zero=1 "
                           "--fix batch.micro_batch_seqs=1 --fix recompute=full --fix communication.alltoall=deepep --json "
                           "--csv '" + dir + ".csv' --write-best '" + dir + ".yaml'");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto plan = nlohmann::json::parse(r.out);
  ASSERT_EQ(plan.at("space").size(), 1u);  // PP alone is searched
  const auto& best = plan.at("ranked").at(0);
  ASSERT_TRUE(best.at("feasible").get<bool>());
  // The top 2 re-run on the flow network, each with a band of 8 paired samples: every sample ranks the two, so
  // the order (of two) holds exactly when the winner does.
  const auto& band = plan.at("band");
  EXPECT_EQ(band.at("samples").get<int>(), 8);
  EXPECT_EQ(band.at("order_holds").get<int>(), band.at("winner_holds").get<int>());
  EXPECT_LE(band.at("winner_holds").get<int>(), 8);
  for (int i : {0, 1}) {
    const auto& q = plan.at("ranked").at(i).at("band_step_time_s");
    EXPECT_LE(q.at("p10").get<double>(), q.at("p50").get<double>()) << i;
    EXPECT_LT(q.at("p10").get<double>(), q.at("p90").get<double>()) << i;  // the ranges move the step
  }
  EXPECT_FALSE(plan.at("ranked").at(2).contains("band_step_time_s"));
  // The CSV: a header, then one row per simulated candidate, the searched key first.
  const auto csv = slurp(dir + ".csv");
  EXPECT_EQ(csv.rfind("rank,parallel.pp,feasible,step_time_s,", 0), 0u) << csv;
  EXPECT_EQ(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')),
            plan.at("simulated").get<std::size_t>() + 1);
  // The written scenario is the winner: `run` on the analytical network gives the plan's step time.
  const auto run = run_k3sim("run '" + dir + ".yaml' --set network=analytical --samples 0 --json");
  ASSERT_EQ(run.exit_status, 0) << run.err;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(run.out).at("step_time_s").get<double>(), best.at("step_time_s").get<double>());
  std::remove((dir + ".csv").c_str());
  std::remove((dir + ".yaml").c_str());
}

TEST(PlanCli, ServeWritesTheSmallestDeploymentAsAScenarioServeReproduces) {
  // DeepSeek-V3 on H100 at 16 requests/s (a 20 s stream): 2 nodes, the smallest that holds its weights, meet the
  // SLO; `serve` on the written scenario measures the plan's attainment and goodput again.
  const std::string dir = std::string(K3SIM_BINARY_DIR) + "/plan-serve-" + std::to_string(::getpid());
  const std::string shorter = "--set workload.duration_s=20 --set workload.warmup_s=5 ";
  const auto r = run_k3sim("plan scenarios/serving/deepseek-v3-h100-96-serving.yaml --serve 16 --ttft 2 --tpot 0.1 " +
                           shorter + "--json --write-best '" + dir + ".yaml'");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto plan = nlohmann::json::parse(r.out);
  EXPECT_EQ(plan.at("chosen_nodes").get<int>(), 2);
  const auto& best = plan.at("ranked").at(0);
  ASSERT_TRUE(best.at("meets").get<bool>());
  const auto serve = run_k3sim("serve '" + dir + ".yaml' --json");
  ASSERT_EQ(serve.exit_status, 0) << serve.err;
  const auto measured = nlohmann::json::parse(serve.out);
  EXPECT_DOUBLE_EQ(measured.at("goodput_requests_per_s").get<double>(),
                   best.at("result").at("goodput_requests_per_s").get<double>());
  EXPECT_EQ(measured.at("deployment").at("gpus").get<int>(), 16);
  std::remove((dir + ".yaml").c_str());
}

TEST(PlanCli, MpiRanksGiveTheSameRankingAsOneProcess) {
#ifndef K3SIM_MPIRUN
  GTEST_SKIP() << "mpirun or the MPI build is missing";
#else
  // Rule checks, rounds of simulations and the top 2's flow re-runs with their bands spread over 2 ranks: the same
  // CSV, bands included, as one process.
  const std::string dir = std::string(K3SIM_BINARY_DIR) + "/plan-mpi-" + std::to_string(::getpid());
  const std::string args = " plan scenarios/qwen3-235b-h100-256.yaml --gpus 256 --top 2 --band 4 --fix parallel.tp=2 "
                           "--fix parallel.schedule=1f1b --fix parallel.vpp=1 --fix parallel.zero=1 "
                           "--fix batch.micro_batch_seqs=1 --fix communication.alltoall=deepep --csv '";
  ASSERT_EQ(run_k3sim(args.substr(1) + dir + ".single.csv' --jobs 1").exit_status, 0);
  // LeakSanitizer and OpenMPI's own allocations: see SweepCli.MpiRanksGiveTheSameOutputsAsOneProcess.
  const std::string cmd = "cd '" + std::string(K3SIM_SOURCE_DIR) + "' && ASAN_OPTIONS=detect_leaks=0 " + K3SIM_MPIRUN +
                          " --oversubscribe --allow-run-as-root -n 2 '" + K3SIM_BINARY_DIR + "/k3sim'" + args + dir +
                          ".mpi.csv' --jobs 1 >/dev/null 2>&1";
  const int raw = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << cmd;
  const auto a = slurp(dir + ".single.csv"), b = slurp(dir + ".mpi.csv");
  std::remove((dir + ".single.csv").c_str());
  std::remove((dir + ".mpi.csv").c_str());
  EXPECT_NE(a.find("band_p10_s"), std::string::npos);
  EXPECT_EQ(a, b);
#endif
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
