#include <gtest/gtest.h>

#include <numeric>

#include "model/model_spec.hpp"
#include "results/step_output.hpp"
#include "sim/input/scenario.hpp"
#include "sim/train/step_simulator.hpp"
#include "topologies/topology.hpp"

using namespace k3::train;

namespace {

// DeepSeek-V3 on 16 H800 nodes: PP4 DualPipe, EP32 (4 nodes), DP32, 8 micro-batches per pipeline.
std::string dsv3_small(const std::string& extra = "") {
  return "name: dsv3-small\n"
         "model: deepseek-v3\n"
         "cluster: {topology: h800-dsv3-2048, nodes: 16}\n"
         "parallel: {pp: 4, ep: 32, zero: 1, schedule: dualpipe}\n"
         "batch: {seq_len: 4096, global_batch_seqs: 256, micro_batch_seqs: 1}\n"
         "precision: {gemm: fp8, dispatch: fp8}\n"
         "communication: {alltoall: deepep, comm_sms: 20, node_limit: 4}\n" + extra;
}

k3::train::StepResult simulate(const std::string& yaml, const std::vector<k3::input::Override>& overrides = {}, int threads = 0,
                               bool stop_when_over_memory = false) {
  const auto sc = k3::input::parse_scenario(yaml, "test.yaml", overrides);
  const auto spec = k3::model::load_model(sc.model);
  const auto topo = k3::topo::load_topology(sc.topology, {"nodes=" + std::to_string(*sc.nodes)});
  k3::train::StepOptions opt;
  opt.threads = threads;
  opt.stop_when_over_memory = stop_when_over_memory;
  return simulate_step(sc, spec, topo, nullptr, opt);
}

double sum_breakdown(const StepResult& r) {
  return std::accumulate(r.breakdown.begin(), r.breakdown.end(), 0.0,
                         [](double s, const TimeShare& t) { return s + t.seconds; });
}

}  // namespace

TEST(StepSimulator, BreakdownAddsUpToTheStepTime) {
  const auto r = simulate(dsv3_small());
  EXPECT_GT(r.step_time_s, 0);
  EXPECT_NEAR(sum_breakdown(r), r.step_time_s, 1e-6 * r.step_time_s);
  // 256 sequences x 4096 tokens.
  EXPECT_EQ(r.tokens_per_step, 256.0 * 4096);
  EXPECT_EQ(r.microbatches, 8);  // 256 / DP 32 / 1
  EXPECT_GT(r.mfu, 0.05);
  EXPECT_LT(r.mfu, 0.9);
}

TEST(StepSimulator, StoppingOverMemoryGivesTheFullRunsVerdictAndMemoryWithoutTimes) {
  // dsv3_small holds DeepSeek-V3 on 16 nodes (`k3sim run` says ~351 GiB per GPU on its most loaded rank,
  // over the H800's 80 GB): the full run says it does not fit; the stopped run says so too, with the same
  // memory per share, and no times. The 18B GPT of Megatron-LM SC21 on Selene fits (golden
  // megatron_sc21_18b): stopping changes nothing there.
  const auto full = simulate(dsv3_small());
  const auto stopped = simulate(dsv3_small(), {}, 0, true);
  ASSERT_FALSE(full.fits_in_memory);
  EXPECT_GT(full.step_time_s, 0);
  EXPECT_FALSE(stopped.fits_in_memory);
  EXPECT_EQ(stopped.step_time_s, 0);
  EXPECT_TRUE(stopped.breakdown.empty());
  EXPECT_EQ(stopped.hbm_bytes, full.hbm_bytes);
  ASSERT_EQ(stopped.memory.size(), full.memory.size());
  for (std::size_t i = 0; i < full.memory.size(); ++i) {
    EXPECT_EQ(stopped.memory[i].name, full.memory[i].name);
    EXPECT_EQ(stopped.memory[i].bytes, full.memory[i].bytes) << full.memory[i].name;
  }
  const auto selene = [](bool stop) {
    const auto sc = k3::input::load_scenario(std::string(K3SIM_SOURCE_DIR) + "/scenarios/megatron-sc21-selene.yaml");
    const auto spec = k3::model::load_model(sc.model);
    const auto topo = k3::topo::load_topology(sc.topology, {"nodes=" + std::to_string(*sc.nodes)});
    k3::train::StepOptions opt;
    opt.stop_when_over_memory = stop;
    return k3::results::step_to_json(simulate_step(sc, spec, topo, nullptr, opt));
  };
  const auto fits = selene(false);
  ASSERT_TRUE(fits.at("fits_in_memory").get<bool>());
  EXPECT_EQ(selene(true).dump(), fits.dump());
}

TEST(StepSimulator, SameSeedSameResult) {
  const auto a = k3::results::step_to_json(simulate(dsv3_small())).dump();
  const auto b = k3::results::step_to_json(simulate(dsv3_small())).dump();
  EXPECT_EQ(a, b);
}

TEST(StepSimulator, ThreadCountDoesNotChangeTheResult) {
  // Imbalanced load: every GPU of the EP group is simulated, the passes run on worker threads.
  const std::string yaml = dsv3_small("expert_load: {kind: balancer, balancer: none, steps: 1, tokens_per_rank: 1024}\n");
  const auto one = k3::results::step_to_json(simulate(yaml, {}, 1)).dump();
  EXPECT_EQ(one, k3::results::step_to_json(simulate(yaml, {}, 2)).dump());
  EXPECT_EQ(one, k3::results::step_to_json(simulate(yaml, {}, 5)).dump());
}

TEST(StepSimulator, APreparedStepGivesTheSameResultWhateverOrderItsPassesRunIn) {
  // The parts of a step as plan's flow recheck runs them: passes tried in reverse order, the first left for
  // finish() to run. Same JSON as simulate_step.
  const std::string yaml = dsv3_small("expert_load: {kind: balancer, balancer: none, steps: 1, tokens_per_rank: 1024}\n");
  const auto sc = k3::input::parse_scenario(yaml, "test.yaml", {});
  const auto spec = k3::model::load_model(sc.model);
  const auto topo = k3::topo::load_topology(sc.topology, {"nodes=" + std::to_string(*sc.nodes)});
  k3::train::StepOptions opt;
  opt.threads = 1;
  PreparedStep step(sc, spec, topo, nullptr, opt);
  auto* passes = step.passes();
  ASSERT_NE(passes, nullptr);
  ASSERT_GT(passes->size(), 2u);  // DualPipe: F, B, W and F&B passes of several stage classes
  for (std::size_t i = passes->size(); i-- > 1;) passes->try_run(i);
  EXPECT_EQ(k3::results::step_to_json(step.finish()).dump(), k3::results::step_to_json(simulate(yaml, {}, 1)).dump());
}

TEST(StepSimulator, APreparedStepOverMemoryHasNoPasses) {
  // dsv3_small is over the H800's HBM (StoppingOverMemory... above): with stop_when_over_memory nothing is
  // simulated.
  const auto sc = k3::input::parse_scenario(dsv3_small(), "test.yaml", {});
  const auto spec = k3::model::load_model(sc.model);
  const auto topo = k3::topo::load_topology(sc.topology, {"nodes=" + std::to_string(*sc.nodes)});
  k3::train::StepOptions opt;
  opt.stop_when_over_memory = true;
  PreparedStep step(sc, spec, topo, nullptr, opt);
  EXPECT_EQ(step.passes(), nullptr);
  const auto r = step.finish();
  EXPECT_FALSE(r.fits_in_memory);
  EXPECT_EQ(r.step_time_s, 0.0);
}

TEST(StepSimulator, ImbalancedExpertLoadIsSlowerThanBalanced) {
  // Without a balancer the hottest GPU of each EP group gets several times its share of routed rows; the
  // all-to-all waits for it, so the step must take longer than with a perfectly balanced load.
  const auto balanced = simulate(dsv3_small("expert_load: {kind: uniform}\n"));
  const auto skewed = simulate(dsv3_small("expert_load: {kind: balancer, balancer: none, steps: 1, tokens_per_rank: 1024}\n"));
  EXPECT_GT(skewed.step_time_s, balanced.step_time_s * 1.05);
}

TEST(StepSimulator, AnalyticalNetworkIsNoSlowerThanFlow) {
  // The analytical model has no contention: every collective takes at most as long as under max-min
  // sharing, so the step cannot be slower.
  const auto flow = simulate(dsv3_small());
  const auto analytical = simulate(dsv3_small(), {k3::input::parse_override("network=analytical")});
  EXPECT_LE(analytical.step_time_s, flow.step_time_s * (1 + 1e-9));
}

TEST(StepSimulator, LayoutErrorsNameTheKey) {
  try {
    simulate(dsv3_small(), {k3::input::parse_override("parallel.ep=48")});
    FAIL();
  } catch (const k3::core::InputError& e) {
    EXPECT_EQ(e.where().key, "parallel.ep");
  }
  try {
    simulate(dsv3_small(), {k3::input::parse_override("batch.global_batch_seqs=100")});
    FAIL();
  } catch (const k3::core::InputError& e) {
    EXPECT_EQ(e.where().key, "batch.global_batch_seqs");
  }
  try {
    simulate(dsv3_small(), {k3::input::parse_override("parallel.pp=6")});  // DualPipe needs 2 x PP micro-batches
    FAIL();
  } catch (const k3::core::InputError& e) {
    EXPECT_EQ(e.where().file, "test.yaml");
  }
}

TEST(StepSimulator, PerLayerResultsCoverEveryDecoderLayerKind) {
  const auto r = simulate(dsv3_small());
  // DeepSeek-V3: 61 decoder layers, the first 3 with a dense FFN, 58 MoE (arXiv:2412.19437 section 4.2).
  ASSERT_EQ(r.layers.size(), 2u);
  EXPECT_EQ(r.layers[0].kind, "MLA+dense");
  EXPECT_EQ(r.layers[0].count, 3);
  EXPECT_EQ(r.layers[1].kind, "MLA+MoE");
  EXPECT_EQ(r.layers[1].count, 58);
  for (const auto& k : r.layers) {
    EXPECT_GT(k.forward.compute_total_s(), 0) << k.kind;
    // Backward computes input and weight gradients: about twice the forward's GEMM work.
    EXPECT_GT(k.backward.compute_total_s(), k.forward.compute_total_s()) << k.kind;
  }
  // The dense layer has no TP and no experts: no collective, no bytes; what its GPU waits for is its host.
  // The MoE layer's EP32 group spans 4 nodes, so its dispatch and combine cross NICs.
  EXPECT_TRUE(r.layers[0].forward.bytes.empty());
  for (const auto& [kind, s] : r.layers[0].forward.exposed_s) EXPECT_EQ(kind, k3::train::kHostWait);
  ASSERT_TRUE(r.layers[1].forward.bytes.count("nic"));
  EXPECT_GT(r.layers[1].forward.bytes.at("nic"), 0);
  // The layout as run: DP = 16 nodes x 8 GPUs / PP 4 = 32; expert DP = DP / EP = 1.
  EXPECT_EQ(r.layout.dp, 32);
  EXPECT_EQ(r.layout.expert_dp, 1);
  EXPECT_EQ(r.layout.schedule, "dualpipe");
}

TEST(StepSimulator, PerLayerResultsAreInTheJson) {
  const auto j = k3::results::step_to_json(simulate(dsv3_small()));
  ASSERT_TRUE(j.contains("layers"));
  EXPECT_EQ(j["layers"][1]["kind"], "MLA+MoE");
  EXPECT_GT(j["layers"][1]["forward"]["bytes_by_link_class"]["nic"].get<double>(), 0);
  EXPECT_EQ(j["layout"]["ep"], 32);
  EXPECT_EQ(j["layout"]["pp"], 4);
}

namespace {

double memory_named(const StepResult& r, const std::string& name) {
  for (const auto& m : r.memory) {
    if (m.name == name) return m.bytes;
  }
  return 0;
}

}  // namespace

TEST(StepSimulator, RecomputingTheMoeModuleRerunsItsAllToAllInBackward) {
  // Recomputing `moe` runs the MoE layer's forward again before its backward, dispatch and combine
  // included: the backward moves its own bytes (gradients of both) plus one forward's.
  const auto none = simulate(dsv3_small("recompute: none\n"));
  const auto moe = simulate(dsv3_small("recompute: [moe]\n"));
  const auto& n = none.layers[1];
  const auto& m = moe.layers[1];
  ASSERT_EQ(m.kind, "MLA+MoE");
  for (const auto& [link, bytes] : n.forward.bytes) {
    EXPECT_NEAR(m.backward.bytes.at(link), n.backward.bytes.at(link) + bytes, 1e-9 * bytes) << link;
  }
  EXPECT_GT(m.backward.compute_total_s(), n.backward.compute_total_s());
  // The dense layers hold no MoE module: their backward is unchanged.
  EXPECT_DOUBLE_EQ(moe.layers[0].backward.compute_total_s(), none.layers[0].backward.compute_total_s());
  // Fewer activations kept per micro-batch, and one layer's MoE set live again while it recomputes.
  EXPECT_LT(memory_named(moe, "activations"), memory_named(none, "activations"));
  EXPECT_GT(memory_named(moe, "recomputation working set"), 0);
  EXPECT_EQ(moe.layout.recompute, "moe");
}

TEST(StepSimulator, PlacementSaysWhereEachGroupLands) {
  // 16 nodes of 8 GPUs, PP4: a stage is 32 consecutive GPUs (4 nodes). DP 32 and EP 32 each take a whole
  // stage, 4 nodes; a pipeline links GPU g, g + 32, g + 64, g + 96: 4 nodes. TP, CP and expert DP are 1.
  const auto r = simulate(dsv3_small());
  ASSERT_EQ(r.layout.placement.size(), 3u);
  EXPECT_EQ(r.layout.placement[0].group, "DP x CP");
  EXPECT_EQ(r.layout.placement[1].group, "EP");
  EXPECT_EQ(r.layout.placement[2].group, "PP");
  for (const auto& p : r.layout.placement) {
    EXPECT_EQ(p.min_domains, 4) << p.group;
    EXPECT_EQ(p.max_domains, 4) << p.group;
  }
  EXPECT_EQ(r.layout.placement[1].size, 32);
  EXPECT_EQ(r.layout.placement[2].size, 4);
  EXPECT_EQ(r.layout.gpus_per_domain, 8);
}

TEST(StepSimulator, PerHeadMuonShrinksTheOptimizerStepAndItsGather) {
  // K3's attention projections as 96 (KDA q, k, v: 288) per-head matrices of 128 rows: Newton-Schulz on an
  // m x n matrix (m <= n) costs 4 m^2 n + 2 m^3 per iteration, so a [12288, 7168] projection drops from
  // 4 x 7168^2 x 12288 + 2 x 7168^3 to 96 x (4 x 128^2 x 7168 + 2 x 128^3): about 70 x fewer FLOPs. With
  // 96 heads over DP 32 (ZeRO-1) each rank's shard holds whole heads, so those matrices need no gradient gather.
  const std::string k3 =
      "name: k3-small\nmodel: k3\ncluster: {topology: h200-rail, nodes: 64}\n"
      "parallel: {pp: 16, ep: 32, zero: 1, schedule: 1f1b}\n"
      "batch: {seq_len: 4096, global_batch_seqs: 256, micro_batch_seqs: 1}\n"
      "network: analytical\nexpert_load: {kind: uniform}\noptimizer: {kind: muon}\n";
  const auto whole = simulate(k3);
  const auto per_head = simulate(k3, {{"optimizer.per_head_attention", "true"}});
  auto seconds = [](const StepResult& r, const std::string& name) {
    for (const auto& t : r.breakdown) {
      if (t.name == name) return t.seconds;
    }
    return 0.0;
  };
  EXPECT_LT(seconds(per_head, "optimizer step"), seconds(whole, "optimizer step"));
  EXPECT_LT(seconds(per_head, "exposed: Muon gradient all-gather"), seconds(whole, "exposed: Muon gradient all-gather"));
  EXPECT_GT(seconds(per_head, "exposed: Muon gradient all-gather"), 0);  // the experts' and other matrices remain
}
