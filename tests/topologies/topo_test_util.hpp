#pragma once
// Small clusters for the topology tests, written as ClusterSpecs so each test states its shape.
#include "topologies/cluster_spec.hpp"
#include "topologies/load.hpp"

namespace k3::topo::test {

inline ClusterSpec small_cluster(FabricKind kind, int nodes, int gpus_per_node, int radix, std::vector<int> os = {}) {
  ClusterSpec s;
  s.name = "test";
  s.gpu = builtin_gpu_types().at("H800-SXM");
  s.nodes = nodes;
  s.node = NodeSpec{"custom", gpus_per_node, 160e9, 0.5e-6, 64e9, 0.5e-6, 50e9, 1e-6};
  s.fabric = FabricSpec{kind, radix, std::move(os), 50e9, 0.3e-6};
  return s;
}

}  // namespace k3::topo::test
