#pragma once
// A cluster described by a few numbers: a node type repeated `nodes` times and a scale-out fabric built
// from switches of one radix. topologies/load.cpp reads it from YAML; build_cluster() expands it.
#include <string>
#include <vector>

#include "core/units.hpp"
#include "topologies/topology.hpp"

namespace k3::topo {

// Every GPU of a node sits behind one NVSwitch (HGX boards and NVL72 racks alike) and owns one NIC,
// reached over PCIe.
struct NodeSpec {
  std::string type;  // hgx8, nvl72 or custom
  int gpus = 0;
  core::BytesPerSec nvlink_bytes_per_s = 0;  // per GPU per direction
  core::Seconds nvlink_latency_s = 0;
  core::BytesPerSec pcie_bytes_per_s = 0;  // GPU <-> its NIC, per direction
  core::Seconds pcie_latency_s = 0;
  core::BytesPerSec nic_bytes_per_s = 0;  // NIC <-> leaf, per direction
  core::Seconds nic_latency_s = 0;
};

enum class FabricKind { single_switch, fat_tree, rail_fat_tree, multi_plane_fat_tree, fat_tree3 };
std::string_view to_string(FabricKind k);
std::vector<std::string> fabric_kind_names();
// Switch tiers between a NIC and the top of the fabric: 1 (single_switch), 3 (fat_tree3) or 2 (the others).
int tiers_of(FabricKind k);

// Switch-tier sizing: a leaf has radix/2 endpoint ports and radix/(2 k1) uplinks under 1:k1
// oversubscription (the unused ports stay dark); a three-tier aggregation switch has radix/2 leaf ports
// and radix/(2 k2) core uplinks.
struct FabricSpec {
  FabricKind kind = FabricKind::fat_tree;
  int radix = 0;
  std::vector<int> oversubscription;  // per tier from the leaves up; 1 = non-blocking
  core::BytesPerSec link_bytes_per_s = 0;  // switch-to-switch, per direction
  core::Seconds link_latency_s = 0;        // per hop
  // fabric.tiers as written: 0 = auto (a two-tier kind that cannot hold the cluster grows to fat_tree3), else
  // the tiers the fabric must have (a fixed two-tier fabric that cannot hold the cluster is an error).
  int tiers = 0;
};

struct ClusterSpec {
  std::string name;  // the file's name, with a bracketed tag for each note below
  GpuType gpu;
  int nodes = 0;     // nodes the job uses (all of the file's, or as few as hold `gpus`)
  NodeSpec node;     // node.gpus: GPUs the job uses on each node (fewer than the node type's when `gpus` says so)
  FabricSpec fabric;
  AchievableRates achievable{};  // the file's `achievable:` section, per link class
  // What loading changed from the file as written, one sentence each: a job on part of the nodes (`gpus`), a
  // fabric grown to three tiers. Empty when the cluster is built as written.
  std::vector<std::string> notes;
};

// Why the fabric cannot hold the cluster (radix too small, oversubscription that does not divide the
// ports) and which fabric key is at fault; problem is empty when it fits.
struct FabricProblem {
  std::string key;
  std::string problem;
};
FabricProblem fabric_problem(const ClusterSpec& spec);
// With fabric.tiers auto: a two-tier fabric (fat_tree, rail_fat_tree, multi_plane_fat_tree) whose switches cannot
// hold the cluster becomes a three-tier fat tree of the same switches and links (the first tier's
// oversubscription kept, the second 1:1). Returns what two tiers reach and what was built, or empty when nothing
// changed (it fits, the tiers are fixed, or the kind is not two-tier). When three tiers do not hold it either, the
// kind is left at fat_tree3 so that fabric_problem() says how far three tiers reach.
std::string grow_fabric_to_fit(ClusterSpec& spec);
// Throws std::invalid_argument with fabric_problem() when there is one.
Topology build_cluster(const ClusterSpec& spec);

}  // namespace k3::topo
