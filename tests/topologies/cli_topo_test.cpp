#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>
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
  EXPECT_DOUBLE_EQ(j["injection_bytes_per_s"]["nvlink"].get<double>(), 200e9);
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

TEST(CliTopo, GrownFabricIsNamedAndNoted) {
  // 1,152 nodes of 8 = 9,216 GPUs: past the 256 nodes two rail tiers of 64-port switches hold.
  const auto r = run_k3sim("topo h200-rail --set nodes=1152");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.out.find("topology h200-rail [fabric grown to fat_tree3]: 9216 GPUs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("note: fabric grown from rail_fat_tree to fat_tree3"), std::string::npos) << r.out;
  const auto fixed = run_k3sim("topo h200-rail --set nodes=1152 --set fabric.tiers=2");
  EXPECT_EQ(fixed.exit_status, 2);
  EXPECT_NE(fixed.err.find("fabric.tiers"), std::string::npos) << fixed.err;
}

// A scenario's precision.gemm: mxfp8 on a GPU without block-scaled tensor cores is refused before anything runs.
TEST(CliScenarioCluster, BlockScaledPrecisionNeedsAGpuWithIt) {
  const auto r = run_k3sim("run scenarios/k3-h200-2048.yaml --set precision.gemm=mxfp8 --samples 0");
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("precision.gemm"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("H200-SXM"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("GB300-B300"), std::string::npos) << r.err;  // the GPU types that have it
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

// The scenario's cluster keys reach the topology, and errors they cause name them.
TEST(CliScenarioCluster, ClusterKeysAreTopologyOverrides) {
  const auto both = run_k3sim("run scenarios/k3-h200-2048.yaml --set cluster.radix=128 --set cluster.fabric.radix=128");
  EXPECT_EQ(both.exit_status, 2);
  EXPECT_NE(both.err.find("cluster.fabric.radix"), std::string::npos) << both.err;
  const auto tiers = run_k3sim("run scenarios/k3-h200-2048.yaml --set cluster.nodes=1152 --set cluster.fabric.tiers=2");
  EXPECT_EQ(tiers.exit_status, 2);
  EXPECT_NE(tiers.err.find("cluster.fabric.tiers"), std::string::npos) << tiers.err;
  EXPECT_NE(tiers.err.find("at most 256 nodes"), std::string::npos) << tiers.err;
  const auto uneven = run_k3sim("run scenarios/k3-h200-2048.yaml --set cluster.topology=gb200-nvl72 --set cluster.gpus=250");
  EXPECT_EQ(uneven.exit_status, 2);
  EXPECT_NE(uneven.err.find("cluster.gpus"), std::string::npos) << uneven.err;
}

// Issue 49: 5,120 GPUs as 64 in each of 80 GB200 NVL72 racks runs, and the run names the 640 GPUs it leaves idle.
TEST(CliScenarioCluster, PartialNvl72RacksRunAndStateTheIdleGpus) {
  const auto r = run_k3sim(
      "run scenarios/deepseek-v3-gb200-256.yaml --set cluster.nodes=80 --set cluster.gpus=5120 "
      "--set cluster.gpus_per_node=64 --set batch.global_batch_seqs=5120 --set network=analytical --samples 0 --json");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["gpus"], 5120);
  EXPECT_NE(j["topology"].get<std::string>().find("64 per node, 640 idle"), std::string::npos) << j["topology"];
}

// DeepSeek-V3 on 256 of a GB200 NVL72 system's GPUs (64 in each of 4 racks, EP 64 inside each rack's NVLink domain)
// with MXFP8 GEMMs: it runs, and the quantization kernels carry their format's name.
TEST(CliScenarioCluster, DeepSeekV3On256Gb200WithMxfp8) {
  const auto r = run_k3sim(
      "run scenarios/deepseek-v3-h800-2048.yaml --set cluster.topology=gb200-nvl72 --set cluster.gpus=256 "
      "--set precision.gemm=mxfp8 --set parallel.pp=4 --set communication.node_limit=0 --set network=analytical "
      "--samples 0 --json");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["gpus"], 256);
  EXPECT_EQ(j["topology"], "gb200-nvl72 [job on 256 GPUs, 64 per node, 32 idle]");
  bool quantization = false;
  for (const auto& b : j["breakdown"]) quantization = quantization || b["name"] == "compute: MXFP8 quantization";
  EXPECT_TRUE(quantization) << j["breakdown"].dump();
  std::set<std::string> ids;
  for (const auto& e : j["provenance"]) ids.insert(e["id"].get<std::string>());
  EXPECT_TRUE(ids.contains("gemm.mxfp8.efficiency"));
  EXPECT_TRUE(ids.contains("gpu.mxfp8_peak"));
}

}  // namespace
