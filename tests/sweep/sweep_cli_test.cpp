// `k3sim sweep` and `k3sim compare` through the real binary.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>

#include "tests/support/run_k3sim.hpp"

namespace k3::test {
namespace {

using nlohmann::json;

// K3 on 2,048 H200s with the analytical network: the sweep's own use case, about a second a point.
const std::string kBaseArgs = "scenarios/k3-h200-2048.yaml --set network=analytical";

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("k3sim-sweep-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

json run_json(const std::string& args) {
  const auto r = run_k3sim(args);
  EXPECT_EQ(r.exit_status, 0) << args << "\n" << r.err;
  return json::parse(r.out);
}

// Every number in `a` equals the same number in `b` (exactly: both runs are the same computation).
void expect_same_numbers(const json& a, const json& b, const std::string& where) {
  if (a.is_number()) {
    ASSERT_TRUE(b.is_number()) << where;
    EXPECT_EQ(a.get<double>(), b.get<double>()) << where;
  } else if (a.is_object()) {
    for (const auto& [k, v] : a.items()) {
      ASSERT_TRUE(b.contains(k)) << where << "/" << k;
      expect_same_numbers(v, b.at(k), where + "/" + k);
    }
  } else if (a.is_array()) {
    ASSERT_EQ(a.size(), b.size()) << where;
    for (std::size_t i = 0; i < a.size(); ++i) expect_same_numbers(a[i], b[i], where + "/" + std::to_string(i));
  } else {
    EXPECT_EQ(a, b) << where;
  }
}

TEST(SweepCli, EachPointEqualsARunOfThatPointAlone) {
  const auto out = temp_path("points.json");
  const auto r = run_k3sim("sweep " + kBaseArgs + " --grid parallel.ep=32,64 --jobs 2 --out " + out);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto sweep = json::parse(slurp(out));
  std::remove(out.c_str());
  ASSERT_EQ(sweep.at("points").size(), 2u);
  for (const auto& p : sweep.at("points")) {
    ASSERT_TRUE(p.at("ran").get<bool>()) << p.dump();
    const auto ep = p.at("settings").at("parallel.ep").get<std::string>();
    const auto alone = run_json("run " + kBaseArgs + " --set parallel.ep=" + ep + " --samples 0 --json");
    expect_same_numbers(alone, p.at("result"), "ep=" + ep);
    expect_same_numbers(p.at("result"), alone, "ep=" + ep);
  }
}

TEST(SweepCli, BadGridIsOneErrorBeforeAnyPointRuns) {
  // Unknown key, empty range, value of the wrong type: exit 2, one line naming --grid, no progress line.
  for (const char* grid : {"parallel.epp=8,16", "parallel.ep=64:8:x2", "parallel.ep=8,lots"}) {
    const auto out = temp_path("bad.csv");
    const auto r = run_k3sim("sweep " + kBaseArgs + " --grid parallel.pp=8,16 --grid " + grid + " --out " + out);
    EXPECT_EQ(r.exit_status, 2) << grid;
    EXPECT_NE(r.err.find("--grid"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("points/s"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << grid;
  }
}

TEST(SweepCli, FailingPointKeepsItsReasonAndTheOthersRun) {
  // "no-such-model" parses as a scenario (a string) but fails when the point loads it.
  const auto sweep = run_json("sweep " + kBaseArgs + " --grid model=no-such-model,k3 --jobs 2 --json");
  const auto& points = sweep.at("points");
  ASSERT_EQ(points.size(), 2u);
  EXPECT_FALSE(points[0].at("ran").get<bool>());
  EXPECT_FALSE(points[0].at("feasible").get<bool>());
  EXPECT_NE(points[0].at("reason").get<std::string>().find("no-such-model"), std::string::npos);
  EXPECT_TRUE(points[1].at("ran").get<bool>());
  EXPECT_GT(points[1].at("result").at("step_time_s").get<double>(), 0);
  // A lone feasible point is its own front.
  EXPECT_EQ(points[1].at("pareto").get<bool>(), points[1].at("feasible").get<bool>());
}

TEST(SweepCli, CsvHasOneRowPerPointWithReason) {
  const auto out = temp_path("points.csv");
  const auto r = run_k3sim("sweep " + kBaseArgs + " --grid model=no-such-model,k3 --jobs 1 --out " + out);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto csv = slurp(out);
  std::remove(out.c_str());
  // Header + 2 rows.
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3);
  EXPECT_EQ(csv.rfind("index,model,feasible,pareto,gpus,step_time_s", 0), 0u) << csv;
  EXPECT_NE(csv.find("\n0,no-such-model,no,no,"), std::string::npos) << csv;
  // Not a terminal: plain progress lines with the rate.
  EXPECT_NE(r.err.find("sweep: 2/2 points"), std::string::npos) << r.err;
}

TEST(SweepCli, MpiRanksGiveTheSameOutputsAsOneProcess) {
#ifndef K3SIM_MPIRUN
  GTEST_SKIP() << "mpirun or the MPI build is missing";
#else
  const auto single = temp_path("single.json");
  const auto mpi = temp_path("mpi.json");
  // A balanced expert load keeps the six points quick under the sanitizers.
  const std::string grid =
      " --set expert_load.kind=uniform --grid parallel.ep=16,32,64 --grid model=k3,no-such-model";
  ASSERT_EQ(run_k3sim("sweep " + kBaseArgs + grid + " --jobs 1 --out " + single).exit_status, 0);
  // OpenMPI never frees some of its own allocations (ompi_op_base_op_select, dlopen'd MCA components), which
  // LeakSanitizer reports at exit in the sanitizer build; leak checking stays on for k3sim's code in every
  // other test, and address errors stay fatal here.
  const std::string cmd = "cd '" + std::string(K3SIM_SOURCE_DIR) + "' && ASAN_OPTIONS=detect_leaks=0 " + K3SIM_MPIRUN +
                          " --oversubscribe --allow-run-as-root -n 2 '" + K3SIM_BINARY_DIR + "/k3sim' sweep " + kBaseArgs +
                          grid + " --out " + mpi + " >/dev/null 2>&1";
  const int raw = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << cmd;
  const auto a = slurp(single), b = slurp(mpi);
  std::remove(single.c_str());
  std::remove(mpi.c_str());
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, b);
#endif
}

TEST(CompareCli, VariantsGetDeltasAgainstTheFirst) {
  const auto j = run_json("compare scenarios/k3-vs-448-h200-2048.yaml --set network=analytical --samples 4 --json");
  // The winner is the shorter plain step; it is checked against each of the 4 paired samples.
  const auto& w = j.at("winner");
  const double t0 = j.at("variants")[0].at("result").at("step_time_s").get<double>();
  const double t1 = j.at("variants")[1].at("result").at("step_time_s").get<double>();
  EXPECT_EQ(w.at("name"), t0 < t1 ? "k3" : "k3-448");
  EXPECT_EQ(w.at("samples").get<int>(), 4);
  EXPECT_LE(w.at("holds_in_samples").get<int>(), 4);
  EXPECT_EQ(w.at("holds_across_band").get<bool>(), w.at("holds_in_samples").get<int>() == 4);
  ASSERT_EQ(j.at("variants").size(), 2u);
  EXPECT_EQ(j.at("baseline"), "k3");
  EXPECT_EQ(j.at("variants")[1].at("result").at("model"), "k3-448");
  for (const auto& m : j.at("metrics")) {
    const auto& v = m.at("values");
    if (v[0].is_null() || v[1].is_null()) continue;
    // The baseline's delta is zero; the other's is its value minus the baseline's.
    EXPECT_EQ(v[0].at("delta").get<double>(), 0) << m.at("label");
    EXPECT_DOUBLE_EQ(v[1].at("delta").get<double>(), v[1].at("value").get<double>() - v[0].at("value").get<double>());
  }
  // Each variant's result is what `k3sim run` gives for the scenario it stands for.
  const auto alone = run_json("run scenarios/k3-448-h200-2048.yaml --set network=analytical --samples 0 --json");
  auto expected = alone;
  expected.erase("scenario");  // names differ: the variant is called k3-448
  auto got = j.at("variants")[1].at("result");
  got.erase("scenario");
  expect_same_numbers(expected, got, "k3-448");
  // K3 caches 24 MLA layers x 576 x 2 B = 27,648 B per token (model/kv_cache.hpp); at 4,096 tokens that
  // is 113,246,208 B plus the KDA state per sequence.
  const auto& kv = j.at("variants")[0].at("kv_cache");
  EXPECT_EQ(kv.at("bytes_per_token").get<double>(), 27648);
  EXPECT_EQ(kv.at("bytes_per_sequence").get<double>(), 113246208 + kv.at("state_bytes_per_sequence").get<double>());
}

}  // namespace
}  // namespace k3::test
