#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "tests/support/run_k3sim.hpp"

using k3::test::run_k3sim;

namespace {

TEST(CliTopo, JsonSummaryOfTheDeepSeekPreset) {
  const auto r = run_k3sim("topo h800-dsv3-2048 --json");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["gpus"], 2048);
  EXPECT_EQ(j["switches"], 320);  // 8 planes x (8 leaves + 32 spines)
  EXPECT_EQ(j["diameter_hops"], 8);
  EXPECT_DOUBLE_EQ(j["bisection_bytes_per_s"].get<double>(), 1024 * 50e9);
  EXPECT_DOUBLE_EQ(j["injection_bytes_per_s"]["nvlink"].get<double>(), 160e9);
  EXPECT_DOUBLE_EQ(j["injection_bytes_per_s"]["nic"].get<double>(), 50e9);
  EXPECT_GT(j["links"].get<int>(), 0);
  EXPECT_NE(j["gpu_type"]["source"].get<std::string>().find("hardware.csv"), std::string::npos);
}

TEST(CliTopo, TableDotAndSetOverride) {
  const std::string dot = std::string(K3SIM_BINARY_DIR) + "/topo-test-" + std::to_string(::getpid()) + ".dot";
  const auto r = run_k3sim("topo h100-rail --set nodes=2 --dot '" + dot + "'");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.out.find("16 GPUs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GB/s"), std::string::npos);
  const auto text = k3::test::slurp(dot);
  EXPECT_EQ(text.rfind("digraph", 0), 0u);
  EXPECT_NE(text.find("nvlink 450 GB/s"), std::string::npos);
  std::remove(dot.c_str());
}

TEST(CliTopo, BadInputIsOneLineAndExitStatus2) {
  const auto missing = run_k3sim("topo no-such-preset");
  EXPECT_EQ(missing.exit_status, 2);
  EXPECT_NE(missing.err.find("no such topology preset"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("h800-dsv3-2048"), std::string::npos);
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1);

  const std::string path = std::string(K3SIM_BINARY_DIR) + "/topo-bad-" + std::to_string(::getpid()) + ".yaml";
  std::ofstream(path) << "name: bad\nnodes: 4\nnode:\n  type: hgx8\n  gpu: H100-SXM\n  nvlink_bytes_per_s: 450e9\n"
                         "  nvlink_latency_s: 0\n  pcie_bytes_per_s: 64e9\n  pcie_latency_s: 0\n"
                         "  nic_bytes_per_s: 50e9\n  nic_latency_s: 0\n  colour: blue\n"
                         "fabric: {kind: fat_tree, radix: 16, link_bytes_per_s: 50e9, link_latency_s: 0}\n";
  const auto bad = run_k3sim("topo '" + path + "'");
  EXPECT_EQ(bad.exit_status, 2);
  EXPECT_NE(bad.err.find(path + ":12"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("node.colour"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("nic_latency_s"), std::string::npos) << bad.err;  // the allowed keys
  std::remove(path.c_str());

  EXPECT_EQ(run_k3sim("topo h100-rail --set nodes=100000").exit_status, 2);
}

}  // namespace
