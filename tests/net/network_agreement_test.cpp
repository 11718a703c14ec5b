// The analytical network against the flow network (max-min sharing) on the collectives the step
// simulator and `k3sim collective` run: every row within 5% in time. The analytical model is what sweeps
// and uncertainty bands use, so a layout ranking it produces must not silently differ from the flow model's.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "sim/net/network_factory.hpp"
#include "topologies/load.hpp"

namespace k3::net {
namespace {

constexpr double kBound = 0.05;

double relative_gap(const topo::Topology& topology, CollectiveSpec spec) {
  const auto analytical = simulate_collective(topology, spec, network_model("analytical", {}));
  const auto flow = simulate_collective(topology, spec, network_model("flow", {}));
  return std::abs(analytical.time_s - flow.time_s) / flow.time_s;
}

CollectiveSpec spec_of(CollectiveOp op, CollectiveAlgorithm algorithm, int ranks, double bytes) {
  CollectiveSpec s;
  s.op = op;
  s.algorithm = algorithm;
  s.ranks.resize(static_cast<std::size_t>(ranks));
  std::iota(s.ranks.begin(), s.ranks.end(), topo::GpuId{0});
  s.bytes = bytes;
  return s;
}

TEST(NetworkAgreement, AllToAllFlatDeepEpAndLowLatencyFromEp8ToEp256) {
  // H800 nodes of 8 (DeepSeek-V3's cluster): EP 8 stays on NVLink, EP 16..256 crosses 2..32 nodes' NICs.
  const auto topology = topo::load_topology("h800-dsv3-2048");
  for (auto algorithm : {CollectiveAlgorithm::flat, CollectiveAlgorithm::deepep, CollectiveAlgorithm::deepep_ll}) {
    for (int ranks = 8; ranks <= 256; ranks *= 2) {
      for (double bytes : {1024.0, 1048576.0, 67108864.0, 4294967296.0}) {
        const double gap = relative_gap(topology, spec_of(CollectiveOp::alltoall, algorithm, ranks, bytes));
        EXPECT_LT(gap, kBound) << to_string(algorithm) << " EP " << ranks << ", " << bytes << " B";
      }
    }
  }
}

TEST(NetworkAgreement, RingAndHierarchicalReductionsAndGathers) {
  const auto topology = topo::load_topology("h800-dsv3-2048");
  struct Case {
    CollectiveOp op;
    CollectiveAlgorithm algorithm;
  };
  for (const Case c : {Case{CollectiveOp::allreduce, CollectiveAlgorithm::ring},
                       Case{CollectiveOp::allreduce, CollectiveAlgorithm::hierarchical},
                       Case{CollectiveOp::reducescatter, CollectiveAlgorithm::ring},
                       Case{CollectiveOp::allgather, CollectiveAlgorithm::ring}}) {
    for (int ranks : {8, 64, 256}) {
      for (double bytes : {1048576.0, 1073741824.0}) {
        const double gap = relative_gap(topology, spec_of(c.op, c.algorithm, ranks, bytes));
        EXPECT_LT(gap, kBound) << to_string(c.op) << " " << to_string(c.algorithm) << " " << ranks << " ranks, "
                               << bytes << " B";
      }
    }
  }
}

}  // namespace
}  // namespace k3::net
