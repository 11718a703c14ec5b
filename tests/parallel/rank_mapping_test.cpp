#include <gtest/gtest.h>

#include "core/error.hpp"
#include "sim/parallel/rank_mapping.hpp"

using namespace k3::parallel;

TEST(RankMapping, DeepSeekV3Layout) {
  // 2048 GPUs, 8 per node, PP16, EP64, no TP: DP = 2048 / 16 = 128; a stage is 128 GPUs = 16 nodes; an EP
  // group is 64 consecutive GPUs = 8 nodes (DeepSeek-V3: "EP64 spanning 8 nodes"); experts are
  // replicated over DP / EP = 2 groups.
  k3::parallel::ParallelLayout l;
  l.pp = 16;
  l.ep = 64;
  k3::parallel::RankMapping m(l, 2048, 8, "t.yaml");
  EXPECT_EQ(m.layout().dp, 128);
  const auto ep = m.ep_group(130);  // stage 1, DP rank 2
  ASSERT_EQ(ep.size(), 64u);
  EXPECT_EQ(ep.front(), 128u);
  EXPECT_EQ(ep.back(), 191u);
  EXPECT_EQ(m.nodes_spanned(ep), 8);
  EXPECT_EQ(m.expert_dp_group(130), (std::vector<k3::parallel::GpuIndex>{130, 194}));
  EXPECT_EQ(m.pipeline_peer(130, 15), 15u * 128 + 2);
  EXPECT_EQ(m.dp_group(0).size(), 128u);
}

TEST(RankMapping, TensorParallelStaysInNode) {
  // TP8 x PP2 x DP4 on 64 GPUs: GPU = ((pp x 4 + dp) x 1 + cp) x 8 + tp; coordinates round-trip.
  k3::parallel::ParallelLayout l;
  l.tp = 8;
  l.pp = 2;
  k3::parallel::RankMapping m(l, 64, 8, "t.yaml");
  EXPECT_EQ(m.layout().dp, 4);
  for (GpuIndex g = 0; g < 64; ++g) {
    EXPECT_EQ(m.gpu_of(m.coord_of(g)), g);
    EXPECT_EQ(m.nodes_spanned(m.tp_group(g)), 1);
  }
  EXPECT_EQ(m.gpu_of({3, 0, 2, 1}), (1u * 4 + 2) * 8 + 3);
}

TEST(RankMapping, SpreadEpGroupsSpanMoreNodes) {
  // DP 16 on 2 nodes of 8, EP 8: contiguous groups fill one node; strided ones take every other DP rank
  // and so span both nodes.
  k3::parallel::ParallelLayout l;
  l.ep = 8;
  k3::parallel::RankMapping packed(l, 16, 8, "t.yaml");
  EXPECT_EQ(packed.nodes_spanned(packed.ep_group(0)), 1);
  l.ep_spread = true;
  k3::parallel::RankMapping spread(l, 16, 8, "t.yaml");
  EXPECT_EQ(spread.ep_group(0), (std::vector<k3::parallel::GpuIndex>{0, 2, 4, 6, 8, 10, 12, 14}));
  EXPECT_EQ(spread.nodes_spanned(spread.ep_group(0)), 2);
  EXPECT_EQ(spread.expert_dp_group(0), (std::vector<k3::parallel::GpuIndex>{0, 1}));
}

TEST(RankMapping, InvalidLayoutsAreInputErrors) {
  k3::parallel::ParallelLayout l;
  l.pp = 3;
  EXPECT_THROW(RankMapping(l, 64, 8, "t.yaml"), k3::core::InputError);  // 3 does not divide 64
  l.pp = 1;
  l.tp = 16;
  EXPECT_THROW(RankMapping(l, 64, 8, "t.yaml"), k3::core::InputError);  // TP wider than a node
  l.tp = 1;
  l.ep = 48;
  EXPECT_THROW(RankMapping(l, 64, 8, "t.yaml"), k3::core::InputError);  // EP does not divide DP 64
  l.ep = 1;
  l.dp = 7;
  EXPECT_THROW(RankMapping(l, 64, 8, "t.yaml"), k3::core::InputError);  // explicit DP inconsistent
}
