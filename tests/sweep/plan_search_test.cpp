// `k3sim plan`'s search (sweep/plan_search.hpp) against an exhaustive simulation of every layout, and the
// layout rules it prunes with (sweep/layout_rules.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <tuple>

#include "core/error.hpp"
#include "model/hf_config.hpp"
#include "model/model_spec.hpp"
#include "sim/input/scenario.hpp"
#include "sim/train/step_simulator.hpp"
#include "sweep/layout_rules.hpp"
#include "sweep/cluster_plan.hpp"
#include "sweep/plan_search.hpp"
#include "topologies/cluster_spec.hpp"
#include "topologies/load.hpp"

namespace k3::sweep {
namespace {

// A small DeepSeek-V3-shaped MoE (16 experts, top-2) on 2 nodes of 4 H100s: a step simulates in
// milliseconds, so the whole space can be simulated in the test.
constexpr const char* kSmallMoe = R"({"model_type": "deepseek_v3", "hidden_size": 256, "intermediate_size": 512,
  "moe_intermediate_size": 128, "num_hidden_layers": 4, "num_attention_heads": 8, "num_key_value_heads": 8,
  "n_routed_experts": 16, "n_shared_experts": 1, "num_experts_per_tok": 2, "first_k_dense_replace": 1,
  "q_lora_rank": 128, "kv_lora_rank": 64, "qk_nope_head_dim": 32, "qk_rope_head_dim": 16, "v_head_dim": 32,
  "num_nextn_predict_layers": 0, "vocab_size": 1024, "tie_word_embeddings": false})";

constexpr const char* kTwoNodes = R"(name: two-nodes
nodes: 2
node: {type: custom, gpus: 4, gpu: H100-SXM, nvlink_bytes_per_s: 4.5e11, nvlink_latency_s: 1e-6,
       pcie_bytes_per_s: 6.4e10, pcie_latency_s: 1e-6, nic_bytes_per_s: 5e10, nic_latency_s: 2e-6}
fabric: {kind: single_switch, radix: 64, link_bytes_per_s: 5e10, link_latency_s: 1e-6}
)";

constexpr const char* kScenario = R"(name: small-moe
model: small
cluster: {topology: two-nodes}
parallel: {tp: 1, pp: 1, ep: 1}
batch: {seq_len: 512, global_batch_seqs: 32, micro_batch_seqs: 1}
communication: {alltoall: flat}
expert_load: {kind: uniform}
network: flow
price_per_gpu_hour: 2.0
)";

input::ScenarioInputs small_inputs() {
  input::ScenarioInputs in;
  in.scenario = input::parse_scenario(kScenario, "small.yaml");
  in.model = model::load_hf_config_string(kSmallMoe, "config.json");
  in.topology = std::make_shared<const topo::Topology>(
      topo::build_cluster(topo::parse_cluster_spec(core::YamlValue::parse_string(kTwoNodes, "two-nodes.yaml"))));
  return in;
}

struct Best {
  GridPoint settings;
  double step_time_s = std::numeric_limits<double>::infinity();
  int simulated = 0;
  std::vector<double> feasible_times;  // every feasible point's step time, ascending
};

train::StepOptions quiet_step() {
  train::StepOptions opt;
  opt.trace = false;
  opt.per_layer = false;
  opt.threads = 1;
  return opt;
}

// Every point of `axes` (the space plan searched) with `fixes`, simulated as `k3sim run --set ... --set
// network=analytical` would be if the step accepts it; the fastest that fits, first in grid order on a tie.
// Checks on the way, for every simulated point, the two bounds plan prunes with: the memory bound never
// exceeds the memory the simulation reports, and train::step_time_lower_bound never exceeds its step time
// (it is the pipeline run on each pass's busiest compute stream alone plus the shortest optimizer step of a
// pipeline rank, and the simulation adds the network, the routed imbalance and the rest of the data-parallel
// phase on top).
Best exhaustive_best(const input::ScenarioInputs& in, const std::vector<GridAxis>& axes,
                     const std::vector<input::Override>& fixes) {
  const auto& topo = *in.topology;
  const ClusterShape cluster{static_cast<std::int64_t>(topo.gpu_count()), topo.gpus_per_node(),
                             topo.gpu_type().hbm_bytes};
  Best best;
  for (const auto& point : expand_grid(axes)) {
    auto overrides = fixes;
    overrides.insert(overrides.end(), point.begin(), point.end());
    overrides.push_back({"network", "analytical"});
    train::StepResult r;
    input::Scenario step;
    try {
      step = input::parse_scenario(kScenario, "small.yaml", overrides);
      r = train::simulate_step(step, in.model, topo, nullptr, quiet_step());
    } catch (const core::InputError&) {
      continue;
    }
    ++best.simulated;
    EXPECT_LE(parameter_state_bytes_per_gpu(step, in.model, cluster), train::memory_total(r.memory));
    EXPECT_LE(train::step_time_lower_bound(step, in.model, topo, nullptr), r.step_time_s);
    if (!r.fits_in_memory) continue;
    best.feasible_times.push_back(r.step_time_s);
    if (r.step_time_s < best.step_time_s) {
      best.settings = point;
      best.step_time_s = r.step_time_s;
    }
  }
  std::sort(best.feasible_times.begin(), best.feasible_times.end());
  return best;
}

std::string setting(const PlanCandidate& c, const std::string& key) {
  for (const auto& s : c.settings) {
    if (s.key == key) return s.value;
  }
  return "(not searched)";
}

TEST(PlanSearch, TheStepTimeLowerBoundHoldsTheOptimizerStep) {
  // PP = 1: the one pipeline rank is the critical rank, so the bound adds exactly the step's "optimizer step"
  // (dp_phase.hpp's optimizer_update) to a makespan the optimizer does not change. Muon with 5 and with 400
  // Newton-Schulz iterations: the bound rises by what the optimizer step rises (only the Newton-Schulz
  // flops change), the bound stays at most the step time, and with 400 iterations the optimizer step alone
  // is most of the bound (with an ideal host: the shipped host profile's launches would be most of it).
  const auto in = small_inputs();
  const auto& topo = *in.topology;
  const auto step_and_bound = [&](const std::string& iterations) {
    const auto step = input::parse_scenario(kScenario, "small.yaml",
                                            {{"network", "analytical"}, {"host.profile", "none"}, {"optimizer.kind", "muon"},
                                             {"optimizer.newton_schulz_iterations", iterations}});
    const auto r = train::simulate_step(step, in.model, topo, nullptr, quiet_step());
    double optimizer_s = 0;
    for (const auto& share : r.breakdown) {
      if (share.name == "optimizer step") optimizer_s = share.seconds;
    }
    return std::tuple{r.step_time_s, optimizer_s, train::step_time_lower_bound(step, in.model, topo, nullptr)};
  };
  const auto [step5, optimizer5, bound5] = step_and_bound("5");
  const auto [step400, optimizer400, bound400] = step_and_bound("400");
  ASSERT_GT(optimizer400, 10 * optimizer5);
  EXPECT_NEAR(bound400 - bound5, optimizer400 - optimizer5, 1e-9 * bound400);
  EXPECT_LE(bound5, step5);
  EXPECT_LE(bound400, step400);
  EXPECT_GT(optimizer400, 0.5 * bound400);
}

TEST(PlanSearch, ReturnsTheOptimumOfAnExhaustiveSimulation) {
  const auto in = small_inputs();
  // The default space less ZeRO and the all-to-all (which only scale the work of the test): TP, PP, EP,
  // schedule, virtual stages, micro-batch and recomputation.
  PlanOptions o;
  o.fixes = {{"parallel.zero", "1"}, {"communication.alltoall", "flat"}};
  o.threads = 2;
  o.top_k = 2;
  o.exact_rows = 3;
  const auto r = plan_layouts({kScenario, "small.yaml", {}, in}, o);
  const Best best = exhaustive_best(in, r.axes, o.fixes);
  ASSERT_GT(best.feasible_times.size(), 20u);  // the space has real choices
  ASSERT_FALSE(r.ranked.empty());
  const auto& winner = r.ranked.front();
  ASSERT_TRUE(winner.feasible) << winner.reason;
  EXPECT_EQ(winner.settings, best.settings);
  EXPECT_EQ(winner.step_time_s, best.step_time_s);
  // The bound kept some candidates from being simulated, and none of those could have entered the exact
  // rows: they are the exhaustive simulation's best, in order.
  ASSERT_EQ(r.exact_rows, 3u);
  EXPECT_GT(r.pruned.count(kBoundRule), 0u);
  EXPECT_LT(r.simulated, static_cast<std::size_t>(best.simulated));
  for (std::size_t i = 0; i < r.exact_rows; ++i) EXPECT_EQ(r.ranked[i].step_time_s, best.feasible_times[i]) << i;
  std::size_t pruned = 0;
  for (const auto& [rule, c] : r.pruned) pruned += c.candidates;
  EXPECT_EQ(pruned + r.simulated, r.candidates);
  // Ranked by step time; the top 2 re-run on the flow network; the winner is on the front.
  for (std::size_t i = 1; i < r.ranked.size() && r.ranked[i].feasible; ++i) {
    EXPECT_LE(r.ranked[i - 1].step_time_s, r.ranked[i].step_time_s);
  }
  EXPECT_TRUE(r.ranked[0].flow_step_time_s.has_value());
  EXPECT_TRUE(r.ranked[1].flow_step_time_s.has_value());
  EXPECT_FALSE(r.ranked[2].flow_step_time_s.has_value());
  // The re-run is the same layout on the flow network, as `k3sim run` of the base scenario (network: flow).
  auto flow_overrides = o.fixes;
  flow_overrides.insert(flow_overrides.end(), winner.settings.begin(), winner.settings.end());
  auto flow_opt = quiet_step();
  flow_opt.threads = 0;
  const auto flow = train::simulate_step(input::parse_scenario(kScenario, "small.yaml", flow_overrides), in.model,
                                         *in.topology, nullptr, flow_opt);
  EXPECT_EQ(*winner.flow_step_time_s, flow.step_time_s);
  EXPECT_TRUE(winner.pareto);
  ASSERT_TRUE(winner.cost_per_trillion_tokens_usd.has_value());
  EXPECT_GT(*winner.cost_per_trillion_tokens_usd, 0);

  // --exhaustive simulates every legal layout, and only those: the rules removed nothing the step accepts.
  PlanOptions all = o;
  all.exhaustive = true;
  all.top_k = 0;
  const auto every = plan_layouts({kScenario, "small.yaml", {}, in}, all);
  EXPECT_EQ(every.simulated, static_cast<std::size_t>(best.simulated));
  EXPECT_EQ(every.pruned.count(kBoundRule), 0u);
  EXPECT_EQ(every.ranked.front().settings, best.settings);
}

// Issue 47: of layouts equally fast, the one that leaves more HBM free ranks first. A (10 s, 1 GiB free, first in
// the grid), B (10 s, 16 GiB free), C (9 s, 0.5 GiB free) and D (over HBM) rank C (fastest), B (ties A, more free
// HBM), A, D (infeasible last); E ties B exactly, headroom and all, and follows it by grid order.
TEST(PlanSearch, TiesGoToTheLayoutWithMoreHbmFree) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  const auto candidate = [&](std::size_t grid, bool feasible, double step_s, double free_gib) {
    PlanCandidate c;
    c.grid_index = grid;
    c.feasible = feasible;
    c.step_time_s = step_s;
    c.hbm_bytes = 80 * kGiB;
    c.memory_bytes = (80 - free_gib) * kGiB;
    return c;
  };
  std::vector<PlanCandidate> ranked = {candidate(0, true, 10, 1), candidate(1, true, 10, 16), candidate(2, true, 9, 0.5),
                                       candidate(3, false, 0, -4), candidate(4, true, 10, 16)};
  rank_candidates(ranked, PlanObjective::time);
  std::vector<std::size_t> order;
  for (const auto& c : ranked) order.push_back(c.grid_index);
  EXPECT_EQ(order, (std::vector<std::size_t>{2, 1, 4, 0, 3}));
}

// The small model resolved on `gpus` GPUs (nodes of 4) of the same node and switch.
input::ScenarioInputs small_inputs_on(std::int64_t gpus) {
  auto in = small_inputs();
  if (gpus == 0) return in;
  const std::string spec = std::string(kTwoNodes).replace(std::string(kTwoNodes).find("nodes: 2"), 8,
                                                          "nodes: " + std::to_string(gpus / 4));
  in.topology = std::make_shared<const topo::Topology>(
      topo::build_cluster(topo::parse_cluster_spec(core::YamlValue::parse_string(spec, "two-nodes.yaml"))));
  return in;
}

PlanOptions ladder_options() {
  PlanOptions o;
  o.fixes = {{"parallel.zero", "1"}, {"communication.alltoall", "flat"}, {"recompute", "none"},
             {"parallel.schedule", "1f1b"}, {"parallel.vpp", "1"}};
  o.threads = 2;
  o.top_k = 0;
  return o;
}

// The fastest layout on 1 node and on 2 nodes, simulated exhaustively; a goal between the two can only be met from
// 2 nodes on.
struct LadderGoal {
  double one_node = 0, two_nodes = 0;
  TrainingGoal goal;
};

LadderGoal goal_between_one_and_two_nodes() {
  auto o = ladder_options();
  o.exhaustive = true;
  const auto on = [&](std::int64_t gpus) {
    const auto in = small_inputs_on(gpus);
    return plan_layouts({kScenario, "small.yaml", {{"cluster.nodes", std::to_string(gpus / 4)}}, in}, o)
        .ranked.front()
        .step_time_s;
  };
  LadderGoal g;
  g.one_node = on(4);
  g.two_nodes = on(8);
  // 32 sequences of 512 tokens a step: tokens = tokens per step x steps in a day at the goal's step time.
  g.goal = {32.0 * 512 * 86400 / ((g.one_node + g.two_nodes) / 2), 1.0};
  return g;
}

TEST(ClusterPlan, ClimbsTheLadderToTheSmallestClusterThatMeetsTheGoal) {
  EXPECT_EQ(cluster_ladder(1, 13), (std::vector<std::int64_t>{1, 2, 3, 4, 6, 8, 12}));
  EXPECT_EQ(cluster_ladder(5, 16), (std::vector<std::int64_t>{6, 8, 12, 16}));

  const auto [one_node, two_nodes, goal] = goal_between_one_and_two_nodes();
  ASSERT_LT(two_nodes, one_node);
  const double goal_step_s = (one_node + two_nodes) / 2;
  const auto o = ladder_options();
  const auto r = plan_cluster_size(kScenario, "small.yaml", {}, goal, o, small_inputs_on, 16);
  EXPECT_NEAR(r.goal_step_time_s, goal_step_s, 1e-9 * goal_step_s);
  ASSERT_TRUE(r.chosen.has_value());
  EXPECT_EQ(r.chosen->gpus, 8);
  ASSERT_EQ(r.tried.size(), 2u);  // 1 node, then 2
  EXPECT_FALSE(r.tried[0].meets);
  EXPECT_TRUE(r.tried[1].meets);
  EXPECT_FALSE(r.sized_on_goodput);
  EXPECT_EQ(r.ideal_gpus, 8);
  EXPECT_EQ(r.chosen->ranked.front().step_time_s, two_nodes);
  // A goal no size up to the limit meets ends the ladder without an answer.
  const auto none = plan_cluster_size(kScenario, "small.yaml", {}, {goal.tokens * 1e3, 1.0}, o, small_inputs_on, 16);
  EXPECT_FALSE(none.chosen.has_value());
  EXPECT_THROW(plan_cluster_size(kScenario, "small.yaml", {}, {0, 1}, o, small_inputs_on, 16), core::InputError);
}

TEST(ClusterPlan, SizesOnGoodputWhenTheScenarioHasAReliabilityBlock) {
  const auto [one_node, two_nodes, goal] = goal_between_one_and_two_nodes();
  // A GPU failure every 100 GPU-hours and 6 h to restart: on 8 GPUs one every 12.5 h, so the run keeps about
  // 12.5 / (12.5 + 6) = 68% of its time, while 2 nodes beat the goal's step by (one - two) / (one + two), under 1/3
  // here. 2 nodes meet the goal on ideal throughput and fall short on goodput; the ladder climbs on.
  reliability::RecoverySpec spec;
  spec.rates = {};
  spec.rates[reliability::FailureCause::gpu] = 0.01;
  spec.restart_s = 6 * 3600.0;
  ASSERT_LT((one_node - two_nodes) / (one_node + two_nodes), 1.0 / 3);
  const auto resolve = [&](std::int64_t gpus) {
    auto in = small_inputs_on(gpus);
    in.scenario.reliability = spec;
    return in;
  };
  const auto r = plan_cluster_size(kScenario, "small.yaml", {}, goal, ladder_options(), resolve, 64);
  EXPECT_TRUE(r.sized_on_goodput);
  EXPECT_EQ(r.ideal_gpus, 8);
  ASSERT_GE(r.tried.size(), 2u);
  EXPECT_TRUE(r.tried[1].meets);
  ASSERT_TRUE(r.tried[1].effective_training_time.has_value());
  EXPECT_GT(*r.tried[1].effective_training_time, 0.5);
  EXPECT_LT(*r.tried[1].effective_training_time, 0.8);
  EXPECT_FALSE(r.tried[1].meets_goodput);
  if (r.chosen) {
    EXPECT_GT(r.chosen->gpus, 8);
    EXPECT_TRUE(r.tried.back().meets_goodput);
  }
  // The run's timeline lives on the picosecond clock: a goal of more than 100 days is refused with a reliability block.
  EXPECT_THROW(plan_cluster_size(kScenario, "small.yaml", {}, {goal.tokens, 200}, ladder_options(), resolve, 16),
               core::InputError);
}

TEST(PlanSearch, FixedKeyLeavesTheSearchAndHoldsItsValue) {
  const auto in = small_inputs();
  PlanOptions o;
  o.fixes = {{"parallel.tp", "2"}};
  o.top_k = 0;
  const auto r = plan_layouts({kScenario, "small.yaml", {}, in}, o);
  for (const auto& a : r.axes) EXPECT_NE(a.key, "parallel.tp");
  ASSERT_FALSE(r.ranked.empty());
  for (const auto& c : r.ranked) EXPECT_EQ(setting(c, "parallel.tp"), "(not searched)");
  EXPECT_FALSE(r.ranked.front().flow_step_time_s.has_value());
}

TEST(PlanSearch, RefusesKeysThatWouldChangeTheResolvedModelOrCluster) {
  const auto in = small_inputs();
  PlanOptions o;
  o.axes = {{"cluster.nodes", {"1", "2"}}};
  try {
    plan_layouts({kScenario, "small.yaml", {}, in}, o);
    FAIL() << "a --grid of cluster.nodes was accepted";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().file, "--grid");
  }
  PlanOptions both;
  both.fixes = {{"parallel.pp", "2"}};
  both.axes = {{"parallel.pp", {"1", "2"}}};
  EXPECT_THROW(plan_layouts({kScenario, "small.yaml", {}, in}, both), core::InputError);
  // Ranking by cost needs a price.
  auto unpriced = small_inputs();
  unpriced.scenario.price_per_gpu_hour.reset();
  PlanOptions by_cost;
  by_cost.objective = PlanObjective::cost;
  try {
    plan_layouts({kScenario, "small.yaml", {}, unpriced}, by_cost);
    FAIL() << "--objective cost ran without a price";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().key, "price_per_gpu_hour");
  }
}

TEST(LayoutRules, NameTheRuleARunWouldFailOn) {
  const auto in = small_inputs();
  const ClusterShape cluster{8, 4, in.topology->gpu_type().hbm_bytes};
  const auto with = [&](const std::string& key, const std::string& value) {
    return check_layout_rules(input::parse_scenario(kScenario, "small.yaml", {{key, value}}), in.model, cluster);
  };
  EXPECT_FALSE(with("parallel.tp", "2").has_value());
  ASSERT_TRUE(with("parallel.tp", "3").has_value());
  EXPECT_EQ(with("parallel.tp", "3")->rule, "parallel");  // TP x CP x PP does not divide 8 GPUs
  ASSERT_TRUE(with("parallel.ep", "32").has_value());
  EXPECT_EQ(with("parallel.ep", "32")->rule, "parallel.ep");
  ASSERT_TRUE(with("batch.global_batch_seqs", "12").has_value());
  EXPECT_EQ(with("batch.global_batch_seqs", "12")->rule, "batch.global_batch_seqs");
}

TEST(LayoutRules, MemoryBoundRefusesK3OnOneNode) {
  // K3's 2.78T parameters on 8 H200s: the weights alone are far beyond 141 GB, whatever the layout.
  const auto spec = model::load_model("k3");
  const auto step = input::parse_scenario(
      "name: k3-one-node\nmodel: k3\ncluster: {topology: h200-rail, nodes: 1}\nparallel: {tp: 1, pp: 8, ep: 1}\n"
      "batch: {seq_len: 4096, global_batch_seqs: 8, micro_batch_seqs: 1}\n",
      "k3.yaml");
  const ClusterShape cluster{8, 8, 141e9};
  const auto refusal = check_layout_rules(step, spec, cluster);
  ASSERT_TRUE(refusal.has_value());
  EXPECT_EQ(refusal->rule, kMemoryRule);
  EXPECT_NE(refusal->message.find("GiB"), std::string::npos) << refusal->message;
  EXPECT_GT(parameter_state_bytes_per_gpu(step, spec, cluster), 2.78e12 * 2 / 8);  // BF16 weights alone
}

}  // namespace
}  // namespace k3::sweep
