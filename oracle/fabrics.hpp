#pragma once
// Small hand-built clusters for network tests and benchmarks, made with topologies' TopologyBuilder so the
// figures are fixed here and do not move when the shipped presets are recalibrated.
// Capacities are per direction. H100 SXM: NVLink 4 at 900 GB/s bidirectional = 450 GB/s each way
// (NVIDIA H100 datasheet); ConnectX-7 400 Gb/s = 50 GB/s (NVIDIA ConnectX-7 datasheet); PCIe Gen5 x16
// about 64 GB/s each way (PCI-SIG). Latencies are round test values.
#include <string>

#include "topologies/topology.hpp"

namespace k3::oracle {

inline constexpr double kNvlinkBytesPerS = 450e9;
inline constexpr double kPcieBytesPerS = 64e9;
inline constexpr double kNicBytesPerS = 50e9;
inline constexpr double kNvlinkLatencyS = 0.5e-6;
inline constexpr double kPcieLatencyS = 0.3e-6;
inline constexpr double kNicLatencyS = 0.6e-6;
inline constexpr double kFabricLatencyS = 0.4e-6;

inline topo::GpuType test_gpu() {
  topo::GpuType t;
  t.name = "H100-SXM";
  t.bf16_flops_per_s = 989e12;
  t.source = "NVIDIA H100 datasheet";
  return t;
}

// One node of `gpus` GPUs on an NVSwitch.
inline topo::Topology nvswitch_node(int gpus) {
  topo::TopologyBuilder b("nvswitch-" + std::to_string(gpus), test_gpu());
  const auto sw = b.add_vertex(topo::VertexKind::nvswitch, 0);
  for (int g = 0; g < gpus; ++g)
    b.add_duplex(b.add_gpu(0), sw, kNvlinkBytesPerS, kNvlinkLatencyS, topo::LinkClass::nvlink);
  return std::move(b).build();
}

// `nodes` nodes of `gpus_per_node` GPUs on an NVSwitch; every GPU has its own NIC, cabled to the leaf of
// its rail (local index); rail leaves join `spines` spines with enough capacity to be non-blocking divided
// by `oversubscription`.
inline topo::Topology rail_fat_tree(int nodes, int gpus_per_node, int spines, double oversubscription = 1.0) {
  topo::TopologyBuilder b("rail-fat-tree-" + std::to_string(nodes * gpus_per_node), test_gpu());
  std::vector<topo::VertexId> leaf(static_cast<std::size_t>(gpus_per_node));
  for (auto& l : leaf) l = b.add_vertex(topo::VertexKind::leaf);
  for (int n = 0; n < nodes; ++n) {
    const auto sw = gpus_per_node > 1 ? b.add_vertex(topo::VertexKind::nvswitch, n) : topo::kNoVertex;
    for (int g = 0; g < gpus_per_node; ++g) {
      const auto gpu = b.add_gpu(n);
      if (sw != topo::kNoVertex) b.add_duplex(gpu, sw, kNvlinkBytesPerS, kNvlinkLatencyS, topo::LinkClass::nvlink);
      const auto nic = b.add_vertex(topo::VertexKind::nic, n);
      b.add_duplex(gpu, nic, kPcieBytesPerS, kPcieLatencyS, topo::LinkClass::pcie);
      b.add_duplex(nic, leaf[static_cast<std::size_t>(g)], kNicBytesPerS, kNicLatencyS, topo::LinkClass::nic);
    }
  }
  const double uplink = nodes * kNicBytesPerS / spines / oversubscription;
  for (int s = 0; s < spines; ++s) {
    const auto spine = b.add_vertex(topo::VertexKind::spine);
    for (auto l : leaf) b.add_duplex(l, spine, uplink, kFabricLatencyS, topo::LinkClass::leaf_spine);
  }
  b.set_rail_aligned(true);
  return std::move(b).build();
}

// Single-GPU nodes under two leaves (`per_leaf` nodes each) joined by one spine whose links carry
// per_leaf x NIC / oversubscription: the spine is the shared bottleneck between the leaves.
inline topo::Topology two_leaf_oversubscribed(int per_leaf, double oversubscription) {
  topo::TopologyBuilder b("two-leaf", test_gpu());
  const auto spine = b.add_vertex(topo::VertexKind::spine);
  for (int side = 0; side < 2; ++side) {
    const auto leaf = b.add_vertex(topo::VertexKind::leaf);
    b.add_duplex(leaf, spine, per_leaf * kNicBytesPerS / oversubscription, kFabricLatencyS,
                 topo::LinkClass::leaf_spine);
    for (int i = 0; i < per_leaf; ++i) {
      const int node = side * per_leaf + i;
      const auto gpu = b.add_gpu(node);
      const auto nic = b.add_vertex(topo::VertexKind::nic, node);
      b.add_duplex(gpu, nic, kPcieBytesPerS, kPcieLatencyS, topo::LinkClass::pcie);
      b.add_duplex(nic, leaf, kNicBytesPerS, kNicLatencyS, topo::LinkClass::nic);
    }
  }
  return std::move(b).build();
}

}  // namespace k3::oracle
