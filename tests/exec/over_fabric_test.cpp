// Full-fabric all-to-alls: the simulated block's collectives copied onto every other block of the job.
#include <gtest/gtest.h>

#include "sim/exec/pass_runner.hpp"

namespace k3::exec {
namespace {

net::CollectiveSpec group(std::vector<topo::GpuId> ranks) {
  net::CollectiveSpec s;
  s.op = net::CollectiveOp::alltoall;
  s.algorithm = net::CollectiveAlgorithm::flat;
  s.ranks = std::move(ranks);
  return s;
}

TEST(OverFabric, CopiesTheBlocksGroupsOntoEveryOtherBlockInOrder) {
  // A block of 4 GPUs starting at 8 (the third of a 16-GPU job) with two EP groups of 2 ({8, 10} and {9, 11},
  // stride 2): the copies go to the blocks at 0, 4 and 12, the original first, each block's groups in order.
  const auto out = over_fabric({group({8, 10}), group({9, 11})}, 4, 16);
  ASSERT_EQ(out.size(), 8u);
  const std::vector<std::vector<topo::GpuId>> expected{{8, 10}, {9, 11}, {0, 2}, {1, 3},
                                                       {4, 6}, {5, 7}, {12, 14}, {13, 15}};
  for (std::size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i].ranks, expected[i]) << i;
  // One block is the whole job: nothing to add.
  EXPECT_EQ(over_fabric({group({0, 1, 2, 3})}, 4, 4).size(), 1u);
}

}  // namespace
}  // namespace k3::exec
