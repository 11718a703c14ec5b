// Parallel folding (Megatron-Core, arXiv:2504.14960): the MoE layers fold a stage's TP x CP x DP ranks as
// ETP x EP x EDP. Expected groups derived by hand in each test from the rank order (TP fastest, then CP,
// then DP, then PP; experts: ETP fastest, then EP, then EDP).
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "sim/parallel/rank_mapping.hpp"
#include "sim/parallel/stage_split.hpp"

using namespace k3::parallel;
using Gpus = std::vector<GpuIndex>;

TEST(ParallelFolding, Qwen3Tp2Ep32SpansTpRanks) {
  // 256 H100, TP2 PP8: a stage is 256 / 8 = 32 ranks (DP 16). EP 32 does not divide DP 16 but divides the
  // 32 ranks of the stage: one EP group is the whole stage, GPUs 0..31 = 4 nodes, taking in 16 TP pairs.
  ParallelLayout l;
  l.tp = 2;
  l.pp = 8;
  l.ep = 32;
  RankMapping m(l, 256, 8, "t.yaml");
  EXPECT_EQ(m.layout().dp, 16);
  EXPECT_EQ(expert_dp(m.layout()), 1);
  const auto ep = m.ep_group(33);  // stage 1
  ASSERT_EQ(ep.size(), 32u);
  EXPECT_EQ(ep.front(), 32u);
  EXPECT_EQ(ep.back(), 63u);
  EXPECT_EQ(m.nodes_spanned(ep), 4);
  EXPECT_EQ(m.tp_group(33), (Gpus{32, 33}));
  // The simulated block: lcm(TP x CP = 2, ETP x EP = 32) = 32 consecutive ranks.
  EXPECT_EQ(m.simulated_block(1).size(), 32u);
  EXPECT_EQ(m.simulated_block(1).front(), 32u);
}

TEST(ParallelFolding, Tp4Ep8HasFourExpertReplicas) {
  // TP4 PP8 on 256 GPUs: DP 8, stage 32 ranks; EP 8 -> EDP = 32 / 8 = 4. The EP group of GPU 0 is ranks
  // 0..7 (two TP groups), its EDP group {0, 8, 16, 24}; the block is lcm(4, 8) = 8 ranks where position p is
  // EP rank p.
  ParallelLayout l;
  l.tp = 4;
  l.pp = 8;
  l.ep = 8;
  RankMapping m(l, 256, 8, "t.yaml");
  EXPECT_EQ(expert_dp(m.layout()), 4);
  EXPECT_EQ(m.ep_group(0), (Gpus{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(m.expert_dp_group(5), (Gpus{5, 13, 21, 29}));
  EXPECT_EQ(m.simulated_block(0).size(), 8u);
  EXPECT_EQ(m.ep_index_in_block(5), 5);
}

TEST(ParallelFolding, Tp8Ep4BlockHoldsTwoEpGroups) {
  // TP8, EP4 on 64 GPUs (PP1, DP 8): the block is lcm(8, 4) = 8 ranks = one TP group and two EP groups
  // {0..3} and {4..7}; position 6 is EP rank 6 % 4 = 2.
  ParallelLayout l;
  l.tp = 8;
  l.ep = 4;
  RankMapping m(l, 64, 8, "t.yaml");
  EXPECT_EQ(m.simulated_block(0), (Gpus{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(m.ep_group(6), (Gpus{4, 5, 6, 7}));
  EXPECT_EQ(m.ep_index_in_block(6), 2);
  EXPECT_EQ(m.ep_shape().size, 4);
  EXPECT_EQ(m.ep_shape().stride, 1);
}

TEST(ParallelFolding, ExpertTensorParallelStridesTheEpGroup) {
  // TP2 x DP16 on 32 GPUs, ETP2 x EP4 -> EDP = 32 / 8 = 4. Local rank r = etp + 2 (ep + 4 edp): the EP group of
  // GPU 0 is {0, 2, 4, 6} (stride ETP), its ETP group {0, 1}, its EDP group {0, 8, 16, 24}.
  ParallelLayout l;
  l.tp = 2;
  l.ep = 4;
  l.etp = 2;
  RankMapping m(l, 32, 8, "t.yaml");
  EXPECT_EQ(m.ep_group(0), (Gpus{0, 2, 4, 6}));
  EXPECT_EQ(m.etp_group(0), (Gpus{0, 1}));
  EXPECT_EQ(m.expert_dp_group(0), (Gpus{0, 8, 16, 24}));
  EXPECT_EQ(m.ep_shape().stride, 2);
  EXPECT_EQ(m.ep_index_in_block(3), 1);  // position 3 = etp 1 of EP rank 1
}

TEST(ParallelFolding, ContextParallelGroupsStrideTp) {
  // TP2 x CP4 x DP2 on 16 GPUs: GPU = (dp x 4 + cp) x 2 + tp, so the CP group of GPU 1 is {1, 3, 5, 7}.
  ParallelLayout l;
  l.tp = 2;
  l.cp = 4;
  RankMapping m(l, 16, 8, "t.yaml");
  EXPECT_EQ(m.layout().dp, 2);
  EXPECT_EQ(m.cp_group(1), (Gpus{1, 3, 5, 7}));
  EXPECT_EQ(m.cp_shape().size, 4);
  EXPECT_EQ(m.cp_shape().stride, 2);
}

TEST(ParallelFolding, ExpertGridMustDivideTheStage) {
  // TP1 x DP16 (16 GPUs): EP 48 cannot fold into 16 ranks; the error names parallel.ep and what is allowed.
  ParallelLayout l;
  l.ep = 48;
  try {
    RankMapping m(l, 16, 8, "t.yaml");
    FAIL() << "accepted EP 48 on 16 ranks";
  } catch (const k3::core::InputError& e) {
    EXPECT_EQ(e.where().key, "parallel.ep");
    EXPECT_NE(e.allowed().find("ETP x EP dividing"), std::string::npos);
  }
}

TEST(PipelineLayout, ExpandsRepetitionsAndGroups) {
  // (tt|)*2 -> "tt|tt|"; t*3 -> "ttt".
  EXPECT_EQ(expand_pipeline_layout("E|(tt|)*2L", "t.yaml"), "E|tt|tt|L");
  EXPECT_EQ(expand_pipeline_layout("Et*3|tL", "t.yaml"), "Ettt|tL");
  for (const char* bad : {"E|(tt|L", "E|t*", "E|x|L"}) {
    try {
      (void)expand_pipeline_layout(bad, "t.yaml");
      FAIL() << bad;
    } catch (const k3::core::InputError& e) {
      EXPECT_EQ(e.where().key, "parallel.pipeline_layout") << bad;
    }
  }
}
