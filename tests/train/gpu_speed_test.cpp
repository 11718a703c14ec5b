#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "model/model_spec.hpp"
#include "sim/input/scenario.hpp"
#include "sim/parallel/gpu_speed.hpp"
#include "sim/train/step_simulator.hpp"
#include "topologies/topology.hpp"

using k3::parallel::GpuSpeeds;
using k3::parallel::GpuSpeedSpec;

TEST(GpuSpeeds, DrawsInsideTheSpreadFromTheSeedAndListedGpusWin) {
  GpuSpeedSpec spec;
  spec.spread = 0.08;
  spec.slow = {{5, 0.5, {}}};
  const GpuSpeeds a(spec, 64, 1), b(spec, 64, 1), other_seed(spec, 64, 2);
  bool seed_matters = false;
  double sum = 0;
  for (k3::parallel::GpuIndex g = 0; g < 64; ++g) {
    const double v = a.of(g);
    EXPECT_EQ(v, b.of(g));
    if (g == 5) {
      EXPECT_EQ(v, 0.5);
      continue;
    }
    // Spread 8 %: uniform on [0.96, 1.04).
    EXPECT_GE(v, 0.96);
    EXPECT_LT(v, 1.04);
    sum += v;
    seed_matters = seed_matters || v != other_seed.of(g);
  }
  EXPECT_TRUE(seed_matters);
  // The mean of 63 draws: 1 with a standard deviation of 0.08 / sqrt(12 x 63) = 0.0029; 0.012 is 4 of them.
  EXPECT_NEAR(sum / 63, 1.0, 0.012);
}

TEST(GpuSpeeds, AGpuOutsideTheJobIsAnInputErrorNamingItsLine) {
  GpuSpeedSpec spec;
  spec.slow = {{64, 0.8, {"t.yaml", "gpu_speed.slow[0].gpu", 7}}};
  try {
    const GpuSpeeds speeds(spec, 64, 1);
    FAIL() << "GPU 64 of 64 accepted";
  } catch (const k3::core::InputError& e) {
    EXPECT_EQ(e.where().key, "gpu_speed.slow[0].gpu");
    EXPECT_EQ(e.where().line, 7);
    EXPECT_NE(e.allowed().find("0 to 63"), std::string::npos) << e.allowed();
  }
}

TEST(GpuSpeeds, RangesSetNodesOfAnotherKindAndGpusSetOneByOneWin) {
  // GPUs 8-15 (a second node of 8) at 0.6, GPU 12 set alone at 0.9, a later range over 14-15 at 0.5.
  GpuSpeedSpec spec;
  spec.ranges = {{8, 8, 0.6, {}}, {14, 2, 0.5, {}}};
  spec.slow = {{12, 0.9, {}}};
  const GpuSpeeds speeds(spec, 16, 1);
  EXPECT_TRUE(speeds.modelled());
  EXPECT_EQ(speeds.of(7), 1.0);
  EXPECT_EQ(speeds.of(8), 0.6);
  EXPECT_EQ(speeds.of(12), 0.9);
  EXPECT_EQ(speeds.of(13), 0.6);
  EXPECT_EQ(speeds.of(15), 0.5);
  GpuSpeedSpec outside;
  outside.ranges = {{8, 16, 0.6, {"t.yaml", "gpu_speed.ranges[0].gpus", 4}}};
  try {
    const GpuSpeeds refused(outside, 16, 1);
    FAIL() << "GPUs 8-23 of 16 accepted";
  } catch (const k3::core::InputError& e) {
    EXPECT_EQ(e.where().key, "gpu_speed.ranges[0].gpus");
    EXPECT_NE(e.allowed().find("0 to 15"), std::string::npos) << e.allowed();
  }
}

TEST(SimulatedBlocks, EachRankRunsTheBlockHoldingItsStagesSlowestGpu) {
  // TP2 x DP4 x PP2 on 16 GPUs: stage 0 holds GPUs 0-7 and stage 1 GPUs 8-15; a block is one TP pair.
  k3::parallel::ParallelLayout layout;
  layout.tp = 2;
  layout.pp = 2;
  const k3::parallel::RankMapping map(layout, 16, 8, "t.yaml");
  GpuSpeedSpec spec;
  spec.slow = {{13, 0.5, {}}, {10, 0.9, {}}};
  const auto blocks = k3::parallel::choose_simulated_blocks(map, GpuSpeeds(spec, 16, 1));
  // Rank 0: nothing slow, its first pair at 1 (class 0, no speeds). Rank 1: GPU 13 is the stage's slowest, so the
  // pair {12, 13} at speeds {1, 0.5} (class 1); GPU 10 at 0.9 is in another pair, which waits for this one.
  EXPECT_EQ(blocks.gpus[0], (std::vector<k3::parallel::GpuIndex>{0, 1}));
  EXPECT_TRUE(blocks.speed[0].empty());
  EXPECT_EQ(blocks.gpus[1], (std::vector<k3::parallel::GpuIndex>{12, 13}));
  EXPECT_EQ(blocks.speed[1], (std::vector<double>{1.0, 0.5}));
  EXPECT_EQ(blocks.speed_class, (std::vector<int>{0, 1}));
  EXPECT_EQ(blocks.slowest_gpu, 13u);
  EXPECT_EQ(blocks.slowest_speed, 0.5);
  EXPECT_EQ(blocks.slowest_in(0), 1.0);
  EXPECT_EQ(blocks.slowest_in(1), 0.5);
  EXPECT_FALSE(blocks.uniform_within(1));
}

namespace {

// DeepSeek-V3 on `nodes` H800 nodes: PP2 1F1B, EP8 (one node), ZeRO-1, on the analytical network.
std::string dsv3_pp2(int nodes, const std::string& extra = "") {
  return "name: dsv3-speeds\n"
         "model: deepseek-v3\n"
         "cluster: {topology: h800-dsv3-2048, nodes: " + std::to_string(nodes) + "}\n"
         "network: analytical\n"
         "parallel: {pp: 2, ep: 8, zero: 1, schedule: 1f1b}\n"
         "batch: {seq_len: 4096, global_batch_seqs: " + std::to_string(nodes * 4) + ", micro_batch_seqs: 1}\n"
         "precision: {gemm: fp8, dispatch: fp8}\n"
         "communication: {alltoall: deepep, comm_sms: 20}\n" + extra;
}

k3::train::StepResult simulate_speeds(const std::string& yaml, bool every_rank = false) {
  const auto sc = k3::input::parse_scenario(yaml, "test.yaml", {});
  const auto spec = k3::model::load_model(sc.model);
  const auto topo = k3::topo::load_topology(sc.topology, {"nodes=" + std::to_string(*sc.nodes)});
  k3::train::StepOptions opt;
  opt.trace = false;
  opt.threads = 2;
  opt.simulate_every_rank = every_rank;
  return k3::train::simulate_step(sc, spec, topo, nullptr, opt);
}

}  // namespace

TEST(StepSymmetry, TheShortcutsChangeNoStepTimeFrom16To256Gpus) {
  // Every pipeline rank simulated apart, each GPU of a block on its own thread, against the shortcuts (stage
  // classes shared, one thread for a symmetric block): the same passes, so the same step to the picosecond.
  for (int nodes : {2, 4, 8, 16, 32}) {
    const auto yaml = dsv3_pp2(nodes);
    const auto shortcut = simulate_speeds(yaml), every = simulate_speeds(yaml, true);
    EXPECT_EQ(shortcut.step_time_s, every.step_time_s) << nodes * 8 << " GPUs";
    EXPECT_GT(shortcut.step_time_s, 0);
  }
}

TEST(StepSymmetry, HalfSpeedDoublesEveryKernelOfTheBlock) {
  // Stage 0 holds GPUs 0-7 on 2 nodes; every one at 0.5: each kernel takes its time over 0.5, so each layer's
  // compute (which rank 0's block simulates alone) is twice the full-speed one, to the rounding of a picosecond
  // per kernel.
  std::string slow = "gpu_speed:\n  slow:\n";
  for (int g = 0; g < 8; ++g) slow += "    - {gpu: " + std::to_string(g) + ", speed: 0.5}\n";
  const auto full = simulate_speeds(dsv3_pp2(2)), half = simulate_speeds(dsv3_pp2(2, slow));
  ASSERT_EQ(full.layers.size(), half.layers.size());
  ASSERT_FALSE(full.layers.empty());
  for (std::size_t k = 0; k < full.layers.size(); ++k) {
    EXPECT_NEAR(half.layers[k].forward.compute_total_s(), 2 * full.layers[k].forward.compute_total_s(), 1e-9) << full.layers[k].kind;
    EXPECT_NEAR(half.layers[k].backward.compute_total_s(), 2 * full.layers[k].backward.compute_total_s(), 1e-9) << full.layers[k].kind;
  }
  EXPECT_GT(half.step_time_s, full.step_time_s);
  EXPECT_TRUE(half.gpu_speed.modelled);
  EXPECT_EQ(half.gpu_speed.rank_slowest, (std::vector<double>{0.5, 1.0}));
}

TEST(StepSymmetry, AStragglerCostsTheSameInWhicheverReplicaItSits) {
  // 4 nodes: stage 1 holds GPUs 16-31 as two EP8 blocks (16-23, 24-31). One GPU at 0.8 in either block is the
  // same straggler for the step: the other block waits for it at the DP reductions either way.
  const auto in_first = simulate_speeds(dsv3_pp2(4, "gpu_speed: {slow: [{gpu: 17, speed: 0.8}]}\n"));
  const auto in_second = simulate_speeds(dsv3_pp2(4, "gpu_speed: {slow: [{gpu: 25, speed: 0.8}]}\n"));
  const auto none = simulate_speeds(dsv3_pp2(4));
  EXPECT_EQ(in_first.step_time_s, in_second.step_time_s);
  EXPECT_GT(in_first.step_time_s, none.step_time_s);
  EXPECT_EQ(in_first.gpu_speed.slowest_gpu, 17u);
  EXPECT_EQ(in_second.gpu_speed.slowest_gpu, 25u);
  // A whole stage at 0.8 is no faster than one GPU of it at 0.8: the block's other GPUs wait for that one at every
  // all-to-all.
  std::string stage = "gpu_speed:\n  slow:\n";
  for (int g = 16; g < 32; ++g) stage += "    - {gpu: " + std::to_string(g) + ", speed: 0.8}\n";
  EXPECT_GE(simulate_speeds(dsv3_pp2(4, stage)).step_time_s, in_first.step_time_s);
}

TEST(StepSymmetry, ASpreadSlowsTheStepAndIsDeterministicForTheSeed) {
  const auto none = simulate_speeds(dsv3_pp2(4));
  const auto a = simulate_speeds(dsv3_pp2(4, "gpu_speed: {spread: 0.08}\n")), b = simulate_speeds(dsv3_pp2(4, "gpu_speed: {spread: 0.08}\n"));
  EXPECT_EQ(a.step_time_s, b.step_time_s);
  EXPECT_GT(a.step_time_s, none.step_time_s);
  // Each stage's slowest of 16 draws on [0.96, 1.04) sits below 1 with probability 1 - 2^-16.
  for (double v : a.gpu_speed.rank_slowest) {
    EXPECT_GE(v, 0.96);
    EXPECT_LT(v, 1.0);
  }
}
