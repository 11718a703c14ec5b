#include <gtest/gtest.h>

#include "tests/model/csv.hpp"

#include "topologies/load.hpp"

namespace k3::topo {
namespace {

// A valid file to mutate one line at a time.
const char* kValid = R"(name: tiny
nodes: 4
node:
  type: hgx8
  gpu: H100-SXM
  nvlink_bytes_per_s: 450e9
  nvlink_latency_s: 0.5e-6
  pcie_bytes_per_s: 64e9
  pcie_latency_s: 0.5e-6
  nic_bytes_per_s: 50e9
  nic_latency_s: 1e-6
fabric:
  kind: rail_fat_tree
  radix: 16
  oversubscription: [1]
  link_bytes_per_s: 50e9
  link_latency_s: 0.3e-6
)";

ClusterSpec parse(const std::string& text) {
  return parse_cluster_spec(core::YamlValue::parse_string(text, "tiny.yaml"));
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

core::InputError error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const core::InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return core::InputError({}, "");
}

TEST(LoadTopology, ValidFileParses) {
  const auto s = parse(kValid);
  EXPECT_EQ(s.nodes, 4);
  EXPECT_EQ(s.node.gpus, 8);
  EXPECT_EQ(s.gpu.name, "H100-SXM");
  EXPECT_DOUBLE_EQ(s.gpu.bf16_flops_per_s, 989.4e12);  // hardware.csv H100-SXM bf16_tflops
  EXPECT_EQ(s.fabric.kind, FabricKind::rail_fat_tree);
}

TEST(LoadTopology, UnknownGpuTypeNamesKeyLineAndAllowed) {
  const auto e = error_of(replace(kValid, "gpu: H100-SXM", "gpu: H900"));
  EXPECT_EQ(e.where().file, "tiny.yaml");
  EXPECT_EQ(e.where().key, "node.gpu");
  EXPECT_EQ(e.where().line, 5);
  EXPECT_NE(e.allowed().find("H800-SXM"), std::string::npos);
}

TEST(LoadTopology, UnknownNodeTypeAndUnknownKey) {
  const auto t = error_of(replace(kValid, "type: hgx8", "type: dgx"));
  EXPECT_EQ(t.where().key, "node.type");
  EXPECT_EQ(t.where().line, 4);
  EXPECT_NE(t.allowed().find("nvl72"), std::string::npos);
  const auto k = error_of(replace(kValid, "  radix: 16", "  radixx: 16"));
  EXPECT_EQ(k.where().key, "fabric.radixx");
  EXPECT_EQ(k.where().line, 14);
  EXPECT_EQ(k.problem(), "unknown key (did you mean 'radix'?)");  // one deletion away
}

TEST(LoadTopology, RadixTooSmallForTheNodeCountWithTheTiersFixed) {
  // radix 16: a rail leaf takes 8 nodes; 8 rails x ceil(80/8) = 80 leaves > 16 spine ports. With fabric.tiers 2
  // that is an error at the key that fixed the tiers, saying how far three tiers of the same switches go
  // (16^3 / 4 = 1,024 NICs). Without it the fabric grows to three tiers (cluster_size_test.cpp).
  const auto e = error_of(replace(replace(kValid, "nodes: 4", "nodes: 80"), "  radix: 16", "  radix: 16\n  tiers: 2"));
  EXPECT_EQ(e.where().key, "fabric.tiers");
  EXPECT_EQ(e.where().line, 15);
  EXPECT_NE(e.problem().find("at most 16 nodes"), std::string::npos) << e.problem();
  EXPECT_NE(e.allowed().find("1024 NICs"), std::string::npos) << e.allowed();
}

TEST(LoadTopology, NegativeBandwidthAndBadOversubscription) {
  const auto e = error_of(replace(kValid, "nic_bytes_per_s: 50e9", "nic_bytes_per_s: -50e9"));
  EXPECT_EQ(e.where().key, "node.nic_bytes_per_s");
  EXPECT_EQ(e.where().line, 10);
  const auto o = error_of(replace(kValid, "oversubscription: [1]", "oversubscription: [3]"));
  EXPECT_EQ(o.where().key, "fabric.oversubscription");
}

TEST(LoadTopology, AchievableSharePerLinkClassWithItsSource) {
  const std::string with = std::string(kValid) + R"(achievable:
  nic:
    fraction: 0.94
    low: 0.92
    high: 0.96
    source: "nccl-tests #290"
)";
  const auto s = parse(with);
  const auto& nic = s.achievable[static_cast<std::size_t>(LinkClass::nic)];
  ASSERT_TRUE(nic.has_value());
  EXPECT_DOUBLE_EQ(nic->fraction, 0.94);
  EXPECT_DOUBLE_EQ(nic->low, 0.92);
  EXPECT_EQ(nic->source, "nccl-tests #290");
  EXPECT_FALSE(s.achievable[static_cast<std::size_t>(LinkClass::nvlink)].has_value());  // not stated: line rate

  // Above line rate, a range that does not hold the fraction, an unknown class, no source: one error each,
  // at the key and its line.
  const auto above = error_of(replace(with, "fraction: 0.94", "fraction: 1.2"));
  EXPECT_EQ(above.where().key, "achievable.nic.fraction");
  EXPECT_EQ(above.where().line, 20);
  EXPECT_EQ(above.allowed(), "0 < low <= fraction <= high <= 1");
  EXPECT_EQ(error_of(replace(with, "low: 0.92", "low: 0.95")).where().key, "achievable.nic.fraction");
  const auto cls = error_of(replace(with, "  nic:\n    fraction", "  infiniband:\n    fraction"));
  EXPECT_EQ(cls.where().key, "achievable.infiniband");
  EXPECT_NE(cls.allowed().find("leaf_spine"), std::string::npos);
  EXPECT_EQ(error_of(replace(with, "    source: \"nccl-tests #290\"\n", "")).where().key, "achievable.nic.source");
}

TEST(LoadTopology, EveryPresetStatesNvlinkAndInfinibandSharesWithSources) {
  for (const auto& name : preset_names()) {
    const auto t = load_topology(name);
    for (auto c : {LinkClass::nvlink, LinkClass::nic, LinkClass::leaf_spine}) {
      const auto& a = t.achievable(c);
      ASSERT_TRUE(a.has_value()) << name << " " << to_string(c);
      EXPECT_GT(a->fraction, 0.7) << name;
      EXPECT_LT(a->fraction, 1.0) << name;
      EXPECT_FALSE(a->source.empty()) << name;
    }
  }
}

TEST(LoadTopology, PresetsOverridesAndUnknownPreset) {
  const auto names = preset_names();
  for (const char* p : {"h800-dsv3-2048", "a100-selene", "h100-rail", "h200-rail", "gb200-nvl72", "b200-rail",
                        "gb300-nvl72"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), p), names.end()) << p;
    EXPECT_GT(load_topology(p).gpu_count(), 0u) << p;
  }
  EXPECT_EQ(load_topology("h100-rail", {"nodes=4"}).gpu_count(), 32u);
  EXPECT_EQ(load_cluster_spec("h100-rail", {"fabric.radix=128"}).fabric.radix, 128);
  try {
    load_topology("h900-cluster");
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().file, "h900-cluster");
    EXPECT_NE(e.allowed().find("gb200-nvl72"), std::string::npos);
  }
  EXPECT_THROW(load_topology("h100-rail", {"nodes"}), core::InputError);
  EXPECT_THROW(load_topology("h100-rail", {"nodes=-3"}), core::InputError);
  EXPECT_THROW(load_topology("h100-rail", {"frobnicate=1"}), core::InputError);
}

}  // namespace
}  // namespace k3::topo

// The one GPU catalogue (topologies/gpu_types.yaml) holds every GPU of shared/validation/hardware.csv with its HBM
// (and the GPUs hardware.csv does not list: H20, GB300-B300).
TEST(GpuCatalogue, HbmEqualsHardwareCsv) {
  const auto rows = k3::test::read_validation_csv("hardware.csv");
  const auto gpus = k3::topo::builtin_gpu_types();
  ASSERT_FALSE(rows.empty());
  ASSERT_GE(gpus.size(), rows.size());
  for (const auto& row : rows) {
    ASSERT_TRUE(gpus.count(row.at("gpu"))) << row.at("gpu");
    EXPECT_EQ(gpus.at(row.at("gpu")).hbm_bytes, std::stod(row.at("hbm_gb")) * 1e9) << row.at("gpu");
  }
}

TEST(GpuCatalogue, FindsByCaseInsensitivePrefix) {
  EXPECT_EQ(k3::topo::find_gpu_type("h200", "--gpu").name, "H200-SXM");
  EXPECT_EQ(k3::topo::find_gpu_type("GB200", "--gpu").name, "GB200-B200");
  // An exact name wins over a longer name it begins: "h20" is the H20, not H200-SXM.
  EXPECT_EQ(k3::topo::find_gpu_type("h20", "--gpu").name, "H20");
  EXPECT_EQ(k3::topo::find_gpu_type("gb300", "--gpu").name, "GB300-B300");
  EXPECT_THROW(k3::topo::find_gpu_type("tpu", "--gpu"), k3::core::InputError);
  EXPECT_THROW(k3::topo::find_gpu_type("", "--gpu"), k3::core::InputError);
}
