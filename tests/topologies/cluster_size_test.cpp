// Clusters of any size: how far two and three tiers of one switch radix reach, the fabric growing to three tiers
// when two do not, fixed tiers refusing instead, a job on part of a rack system (`gpus`), and the GPU catalogue's
// new entries. Expectations are derived by hand in the comments.
#include <gtest/gtest.h>

#include <set>

#include "topologies/embedded.hpp"
#include "topologies/load.hpp"

namespace k3::topo {
namespace {

ClusterSpec fat_tree(int nodes, int gpus_per_node, FabricKind kind, int radix) {
  ClusterSpec s;
  s.name = "t";
  s.nodes = nodes;
  s.node.gpus = gpus_per_node;
  s.fabric.kind = kind;
  s.fabric.radix = radix;
  return s;
}

core::InputError load_error(const std::string& preset, const std::vector<std::string>& overrides) {
  try {
    load_cluster_spec(preset, overrides);
  } catch (const core::InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no error for " << preset;
  return core::InputError({}, "");
}

TEST(ClusterSize, TwoAndThreeTiersOfRadix64) {
  // Two tiers: 64 spines of 64 ports, each leaf 32 NICs down and 32 up: 64 leaves x 32 = 64 * 64 / 2 = 2,048 NICs.
  EXPECT_TRUE(fabric_problem(fat_tree(2048, 1, FabricKind::fat_tree, 64)).problem.empty());
  const auto over = fabric_problem(fat_tree(2049, 1, FabricKind::fat_tree, 64));
  EXPECT_EQ(over.key, "radix");
  EXPECT_NE(over.problem.find("at most 2048 NICs"), std::string::npos) << over.problem;
  // Three tiers: 64 pods of 32 leaves x 32 NICs = 64^3 / 4 = 65,536 NICs.
  EXPECT_TRUE(fabric_problem(fat_tree(65536, 1, FabricKind::fat_tree3, 64)).problem.empty());
  EXPECT_NE(fabric_problem(fat_tree(65537, 1, FabricKind::fat_tree3, 64)).problem.find("at most 65536 NICs"),
            std::string::npos);
  // Rail-optimised: each of 8 rails needs ceil(nodes / 32) leaves on the 64 spine ports: 64 / 8 x 32 = 256 nodes.
  EXPECT_TRUE(fabric_problem(fat_tree(256, 8, FabricKind::rail_fat_tree, 64)).problem.empty());
  EXPECT_FALSE(fabric_problem(fat_tree(257, 8, FabricKind::rail_fat_tree, 64)).problem.empty());
}

TEST(ClusterSize, TwoTierPresetGrowsToThreeTiersAndSaysSo) {
  // 1,152 nodes x 8 = 9,216 GPUs: more than the 256 nodes a rail-optimised two-tier fabric of 64-port switches
  // holds, less than the 65,536 NICs of three tiers.
  const auto s = load_cluster_spec("h200-rail", {"nodes=1152"});
  EXPECT_EQ(s.fabric.kind, FabricKind::fat_tree3);
  EXPECT_EQ(s.fabric.radix, 64);
  EXPECT_EQ(s.name, "h200-rail [fabric grown to fat_tree3]");
  ASSERT_EQ(s.notes.size(), 1u);
  EXPECT_NE(s.notes[0].find("at most 256 nodes of 8 GPUs, not 1152"), std::string::npos) << s.notes[0];
  EXPECT_NE(s.notes[0].find("65536 NICs"), std::string::npos) << s.notes[0];
  // Within reach nothing changes.
  const auto small = load_cluster_spec("h200-rail", {"nodes=256"});
  EXPECT_EQ(small.fabric.kind, FabricKind::rail_fat_tree);
  EXPECT_EQ(small.name, "h200-rail");
  EXPECT_TRUE(small.notes.empty());
}

TEST(ClusterSize, ThreeTiersBuildAtTheSizeTheyHold) {
  // radix 16 three tiers: 16 pods of 8 leaves of 8 NICs = 16^3 / 4 = 1,024 NICs; 80 nodes of 8 = 640 GPUs fit.
  const auto t = load_topology("h100-rail", {"nodes=80", "fabric.radix=16"});
  EXPECT_EQ(t.gpu_count(), 640u);
  EXPECT_NE(t.name().find("fat_tree3"), std::string::npos) << t.name();
}

TEST(ClusterSize, FixedTiersOrKindRefuseWithTheLargestSize) {
  // fabric.tiers 2: refused at that key, naming what two tiers hold and what three would.
  const auto tiers = load_error("h200-rail", {"nodes=1152", "fabric.tiers=2"});
  EXPECT_EQ(tiers.where().key, "fabric.tiers");
  EXPECT_NE(tiers.problem().find("at most 256 nodes"), std::string::npos) << tiers.problem();
  EXPECT_NE(tiers.allowed().find("65536 NICs"), std::string::npos) << tiers.allowed();
  // A kind named by an override is the user's: fat_tree of 64-port switches holds 2,048 NICs, not 2,400.
  const auto kind = load_error("h100-rail", {"nodes=300", "fabric.kind=fat_tree"});
  EXPECT_EQ(kind.where().key, "fabric.kind");
  EXPECT_NE(kind.problem().find("at most 2048 NICs, not 2400"), std::string::npos) << kind.problem();
  // Too many for three tiers too: the error says how far three tiers reach.
  const auto huge = load_error("h100-rail", {"nodes=100000"});
  EXPECT_EQ(huge.where().key, "fabric.radix");
  EXPECT_NE(huge.problem().find("three-tier fat tree of 64-port switches holds at most 65536 NICs"), std::string::npos)
      << huge.problem();
  // Tiers that contradict the kind.
  EXPECT_EQ(load_error("h100-rail", {"fabric.kind=fat_tree3", "fabric.tiers=2"}).where().key, "fabric.tiers");
  EXPECT_EQ(load_error("h100-rail", {"fabric.tiers=4"}).where().key, "fabric.tiers");
}

TEST(ClusterSize, TiersThreeNamesTheThreeTierFatTree) {
  const auto s = load_cluster_spec("h100-rail", {"fabric.tiers=3", "fabric.oversubscription=[1, 2]"});
  EXPECT_EQ(s.fabric.kind, FabricKind::fat_tree3);
  EXPECT_EQ(s.fabric.oversubscription, (std::vector<int>{1, 2}));
  EXPECT_EQ(s.name, "h100-rail");  // asked for, so not a change to report
  EXPECT_EQ(load_cluster_spec("h100-rail", {"fabric.radix=128"}).fabric.radix, 128);
}

TEST(ClusterSize, JobOnPartOfARackSystem) {
  // gb200-nvl72: 8 racks of 72 = 576 GPUs. 256 GPUs need ceil(256 / 72) = 4 racks, 256 / 4 = 64 in each.
  const auto s = load_cluster_spec("gb200-nvl72", {"gpus=256"});
  EXPECT_EQ(s.nodes, 4);
  EXPECT_EQ(s.node.gpus, 64);
  // 4 racks x 72 - 256 = 32 GPUs of the racks it uses stay idle.
  EXPECT_EQ(s.name, "gb200-nvl72 [job on 256 GPUs, 64 per node, 32 idle]");
  ASSERT_EQ(s.notes.size(), 1u);
  EXPECT_NE(s.notes[0].find("256 of the 576 GPUs: 64 of the 72 GPUs of each of 4 of the 8 nodes, which leaves 32 GPUs "
                            "of those nodes idle"),
            std::string::npos)
      << s.notes[0];
  const auto t = load_topology("gb200-nvl72", {"gpus=256"});
  EXPECT_EQ(t.gpu_count(), 256u);
  EXPECT_EQ(t.gpus_per_node(), 64);
  EXPECT_EQ(t.node_count(), 4u);
  // Every GPU of a rack still reaches the others of its rack over NVLink alone.
  EXPECT_EQ(t.route(0, 63).size(), 2u);
  // 4 racks of 72 = 288 GPUs: the same 256 from a system of exactly 4 racks.
  EXPECT_EQ(load_cluster_spec("gb200-nvl72", {"nodes=4", "gpus=256"}).node.gpus, 64);
  // All of them: nothing changes.
  EXPECT_EQ(load_cluster_spec("gb200-nvl72", {"gpus=576"}).name, "gb200-nvl72");
  // On HGX nodes: 64 GPUs = 8 nodes of 8.
  const auto hgx = load_cluster_spec("h200-rail", {"gpus=64"});
  EXPECT_EQ(hgx.nodes, 8);
  EXPECT_EQ(hgx.node.gpus, 8);
}

// Issue 49: 5,120 GPUs as 64 in each of 80 NVL72 racks. Without gpus_per_node, 5,120 GPUs need
// ceil(5120 / 72) = 72 racks and 5,120 / 72 is not whole, so the job is refused.
TEST(ClusterSize, GpusPerNodeLeavesTraysSpare) {
  const auto s = load_cluster_spec("gb200-nvl72", {"nodes=80", "gpus=5120", "gpus_per_node=64"});
  EXPECT_EQ(s.nodes, 80);
  EXPECT_EQ(s.node.gpus, 64);
  // 80 x 72 = 5,760 GPUs, of which 5,760 - 5,120 = 640 are idle.
  // (5,120 NICs are more than two tiers of the preset's switches reach: the fabric grows, and says so.)
  EXPECT_EQ(s.name, "gb200-nvl72 [job on 5120 GPUs, 64 per node, 640 idle; fabric grown to fat_tree3]");
  EXPECT_EQ(load_error("gb200-nvl72", {"nodes=80", "gpus=5120"}).where().key, "gpus");
  // gpus_per_node alone: that many on every node, 8 x 64 = 512.
  EXPECT_EQ(load_cluster_spec("gb200-nvl72", {"gpus_per_node=64"}).name, "gb200-nvl72 [job on 512 GPUs, 64 per node, 64 idle]");
  // 5,100 is not a multiple of 64; 5,184 at 64 per node needs 81 racks; a node holds 72, not 80.
  EXPECT_EQ(load_error("gb200-nvl72", {"nodes=80", "gpus=5100", "gpus_per_node=64"}).where().key, "gpus");
  const auto more = load_error("gb200-nvl72", {"nodes=80", "gpus=5184", "gpus_per_node=64"});
  EXPECT_NE(more.allowed().find("cluster.nodes: 81"), std::string::npos) << more.allowed();
  EXPECT_EQ(load_error("gb200-nvl72", {"gpus_per_node=80"}).where().key, "gpus_per_node");
}

TEST(ClusterSize, JobGpusThatDoNotSplitOrDoNotFit) {
  // 250 GPUs need 4 racks; 250 / 4 is not whole. Nearest that split evenly over 4: 248 = 4 x 62, 252 = 4 x 63.
  const auto uneven = load_error("gb200-nvl72", {"gpus=250"});
  EXPECT_EQ(uneven.where().key, "gpus");
  EXPECT_NE(uneven.allowed().find("248 or 252"), std::string::npos) << uneven.allowed();
  // 600 > 8 x 72 = 576: at least ceil(600 / 72) = 9 racks.
  const auto over = load_error("gb200-nvl72", {"gpus=600"});
  EXPECT_EQ(over.where().key, "gpus");
  EXPECT_NE(over.problem().find("576"), std::string::npos) << over.problem();
  EXPECT_NE(over.allowed().find("at least 9"), std::string::npos) << over.allowed();
}

TEST(ClusterSize, NewPresets) {
  const auto b200 = load_cluster_spec("b200-rail");
  EXPECT_EQ(b200.gpu.name, "B200");
  EXPECT_EQ(b200.node.gpus, 8);
  EXPECT_DOUBLE_EQ(b200.node.nvlink_bytes_per_s, 900e9);  // 1.8 TB/s bidirectional / 2
  const auto gb300 = load_cluster_spec("gb300-nvl72");
  EXPECT_EQ(gb300.gpu.name, "GB300-B300");
  EXPECT_EQ(gb300.node.gpus, 72);
  EXPECT_DOUBLE_EQ(gb300.node.nic_bytes_per_s, 100e9);  // ConnectX-8 800 Gb/s
  // Two tiers of 144-port switches: 144 x 72 = 10,368 NICs = 144 racks of 72.
  EXPECT_EQ(load_cluster_spec("gb300-nvl72", {"nodes=144"}).fabric.kind, FabricKind::fat_tree);
  EXPECT_EQ(load_cluster_spec("gb300-nvl72", {"nodes=145"}).fabric.kind, FabricKind::fat_tree3);
}

// Every catalogue entry states every figure, the block-scaled ones included (0 where the GPU has none), so that a
// missing key is never read as "no such tensor cores" by accident.
TEST(GpuCatalogueEntries, EveryEntryStatesEveryFigure) {
  const auto doc = core::YamlValue::parse_string(std::string(embedded_gpu_types()), "gpu_types.yaml");
  for (const auto& [name, entry] : doc.entries()) {
    for (const char* key : {"bf16_flops_per_s", "fp8_flops_per_s", "mxfp8_flops_per_s", "nvfp4_flops_per_s",
                            "hbm_bytes", "hbm_bytes_per_s", "sms", "source"}) {
      EXPECT_TRUE(entry.has(key)) << name << " lacks " << key;
    }
  }
  std::set<std::string> names;
  for (const auto& [name, t] : builtin_gpu_types()) names.insert(name);
  for (const char* gpu : {"A100-SXM-80GB", "H100-SXM", "H800-SXM", "H200-SXM", "H20", "B200", "GB200-B200", "GB300-B300"}) {
    EXPECT_TRUE(names.contains(gpu)) << gpu;
  }
}

TEST(GpuCatalogueEntries, DatasheetFigures) {
  const auto gpus = builtin_gpu_types();
  // GB300 NVL72 datasheet, per rack of 72: 1,080 PF FP4 dense; FP8/FP6 720 PF and BF16 360 PF with sparsity.
  const auto& gb300 = gpus.at("GB300-B300");
  EXPECT_DOUBLE_EQ(gb300.nvfp4_flops_per_s * 72, 1080e15);
  EXPECT_DOUBLE_EQ(gb300.fp8_flops_per_s * 72 * 2, 720e15);
  EXPECT_DOUBLE_EQ(gb300.mxfp8_flops_per_s, gb300.fp8_flops_per_s);
  EXPECT_DOUBLE_EQ(gb300.bf16_flops_per_s * 72 * 2, 360e15);
  EXPECT_EQ(gb300.sms, 160);
  EXPECT_DOUBLE_EQ(gb300.hbm_bytes, 288e9);
  // HGX B200: FP4 9 PF, FP8 4.5 PF dense per GPU; GB200: FP4 720 PF dense per rack of 72 = 10 PF.
  EXPECT_DOUBLE_EQ(gpus.at("B200").nvfp4_flops_per_s, 9000e12);
  EXPECT_DOUBLE_EQ(gpus.at("B200").mxfp8_flops_per_s, 4500e12);
  EXPECT_DOUBLE_EQ(gpus.at("GB200-B200").nvfp4_flops_per_s * 72, 720e15);
  // H20: 148 TFLOP/s BF16 and 296 FP8 dense, 96 GB at 4.0 TB/s, 78 SMs; Hopper has no block-scaled MMA.
  const auto& h20 = gpus.at("H20");
  EXPECT_DOUBLE_EQ(h20.bf16_flops_per_s, 148e12);
  EXPECT_DOUBLE_EQ(h20.fp8_flops_per_s, 296e12);
  EXPECT_DOUBLE_EQ(h20.hbm_bytes, 96e9);
  EXPECT_DOUBLE_EQ(h20.hbm_bytes_per_s, 4.0e12);
  EXPECT_EQ(h20.sms, 78);
  for (const char* hopper : {"H20", "H100-SXM", "H800-SXM", "H200-SXM", "A100-SXM-80GB"}) {
    EXPECT_EQ(gpus.at(hopper).mxfp8_flops_per_s, 0) << hopper;
    EXPECT_EQ(gpus.at(hopper).nvfp4_flops_per_s, 0) << hopper;
  }
}

TEST(GpuCatalogueEntries, CustomGpuTypeInATopologyFile) {
  const auto s = parse_cluster_spec(core::YamlValue::parse_string(R"(name: custom
nodes: 2
gpu_types:
  X1:
    bf16_flops_per_s: 1e15
    fp8_flops_per_s: 2e15
    mxfp8_flops_per_s: 2e15
    nvfp4_flops_per_s: 4e15
    hbm_bytes: 100e9
    hbm_bytes_per_s: 5e12
    sms: 100
    source: "a made-up part"
node: {type: custom, gpus: 4, gpu: X1, nvlink_bytes_per_s: 1e11, nvlink_latency_s: 1e-6, pcie_bytes_per_s: 6.4e10,
       pcie_latency_s: 1e-6, nic_bytes_per_s: 5e10, nic_latency_s: 1e-6}
fabric: {kind: single_switch, radix: 8, link_bytes_per_s: 5e10, link_latency_s: 1e-6}
)", "custom.yaml"));
  EXPECT_EQ(s.gpu.name, "X1");
  EXPECT_DOUBLE_EQ(s.gpu.nvfp4_flops_per_s, 4e15);
}

}  // namespace
}  // namespace k3::topo
