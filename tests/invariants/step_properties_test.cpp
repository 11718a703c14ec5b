// Property test: 240 random small scenarios (at least 200 simulated) (tiny DeepSeek-V3-style or dense models from config.json text,
// tiny custom clusters, random layouts, schedules, network models and all-to-all algorithms) through
// train::simulate_step. Each must either simulate or throw core::InputError; the engine's own invariants
// (time never goes back, max-min rates within capacity, every flow and collective completes, bytes sent
// equal bytes received) are asserted inside the simulator (InternalError) in every build, the capacity
// check in debug and sanitizer builds. On a result:
//   step time > 0; every breakdown entry >= 0 and the entries sum to the step time;
//   step time >= the compute entries alone (the critical rank's compute, no communication or bubble);
//   step time <= every pass of every pipeline rank and every DP-phase span run one after another;
//   the same scenario and seed gives the identical result.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>

#include "model/hf_config.hpp"
#include "core/rng.hpp"
#include "sim/input/scenario.hpp"
#include "results/step_output.hpp"
#include "sim/train/step_simulator.hpp"
#include "topologies/load.hpp"

namespace {

using namespace k3;

struct Case {
  std::string model_json, topology_yaml, scenario_yaml;
  int pp = 1;
  bool dualpipe = false;
  // Upper bound on one stage-to-stage activation transfer (the trace has no span for them): the BF16
  // activations of a micro-batch, micro x seq_len x hidden x 2 B, over the slowest link of these clusters
  // (5e10 B/s NIC and fabric links), plus every latency on the longest path: NVLink 1 us + PCIe 1 us +
  // NIC 2 us on each side and up to 3 fabric hops of 1 us = 11 us, rounded up to 20 us.
  double p2p_bound_s = 0;
};

int uniform_int(core::Rng& rng, int lo, int hi) {
  return lo + static_cast<int>(rng.below(static_cast<std::uint64_t>(hi - lo + 1)));
}

int pick(core::Rng& rng, std::initializer_list<int> values) {
  return *(values.begin() + uniform_int(rng, 0, static_cast<int>(values.size()) - 1));
}

// A layout built to fit: TP within a node, PP and EP dividing what is left, layers at least PP, a batch
// that splits into whole micro-batches. Refusals that remain come from checks the generator does not
// model (none today) and must still be InputErrors.
Case random_case(core::Rng& rng, int index) {
  Case c;
  const int gpus_per_node = pick(rng, {1, 2, 4, 8});
  const int nodes = pick(rng, {1, 2, 4});
  const int gpus = nodes * gpus_per_node;
  const int tp = gpus_per_node >= 2 && uniform_int(rng, 0, 3) == 0 ? 2 : 1;
  int pp = pick(rng, {1, 2, 4});
  while (gpus % (tp * pp) != 0) pp /= 2;
  const int dp = gpus / (tp * pp);
  const bool dense = uniform_int(rng, 0, 3) == 0;
  int ep = dense || tp > 1 ? 1 : pick(rng, {1, 2, 4, 8});  // TP with EP is not modelled
  while (dp % ep != 0) ep /= 2;
  const int layers = std::max(pp, pick(rng, {2, 3, 4}));
  const int hidden = pick(rng, {256, 512});
  if (dense) {
    c.model_json = fmt::format(
        R"({{"model_type": "llama", "hidden_size": {}, "intermediate_size": {}, "num_hidden_layers": {},
            "num_attention_heads": 8, "num_key_value_heads": {}, "vocab_size": 1024,
            "max_position_embeddings": 4096, "tie_word_embeddings": false}})",
        hidden, hidden * 3, layers, pick(rng, {2, 8}));
  } else {
    c.model_json = fmt::format(
        R"({{"model_type": "deepseek_v3", "hidden_size": {}, "intermediate_size": {}, "moe_intermediate_size": 128,
            "num_hidden_layers": {}, "num_attention_heads": 8, "num_key_value_heads": 8, "n_routed_experts": {},
            "n_shared_experts": 1, "num_experts_per_tok": {}, "first_k_dense_replace": 1, "q_lora_rank": 128,
            "kv_lora_rank": 64, "qk_nope_head_dim": 32, "qk_rope_head_dim": 16, "v_head_dim": 32,
            "num_nextn_predict_layers": 0, "vocab_size": 1024, "tie_word_embeddings": false}})",
        hidden, hidden * 2, layers, pick(rng, {8, 16, 32}), pick(rng, {1, 2, 4}));
  }
  const bool single = uniform_int(rng, 0, 1) == 0;
  c.topology_yaml = fmt::format(
      "name: random-{}\nnodes: {}\n"
      "node: {{type: custom, gpus: {}, gpu: H100-SXM, nvlink_bytes_per_s: 4.5e11, nvlink_latency_s: 1e-6,\n"
      "       pcie_bytes_per_s: 6.4e10, pcie_latency_s: 1e-6, nic_bytes_per_s: 5e10, nic_latency_s: 2e-6}}\n"
      "fabric: {{kind: {}, radix: {}, link_bytes_per_s: 5e10, link_latency_s: 1e-6}}\n",
      index, nodes, gpus_per_node, single ? "single_switch" : "fat_tree", single ? 64 : 8);
  const int micro = pick(rng, {1, 2});
  c.pp = pp;
  c.dualpipe = pp > 1 && uniform_int(rng, 0, 2) == 0;
  // Micro-batches per pipeline; DualPipe needs an even count of at least 2 x PP.
  const int microbatches = c.dualpipe ? 2 * pp * pick(rng, {1, 2}) : pick(rng, {1, 2, 4, 8});
  const int global = dp * micro * microbatches;
  const int seq_len = pick(rng, {128, 512});
  c.p2p_bound_s = micro * seq_len * hidden * 2.0 / 5e10 + 20e-6;
  const char* schedule = c.dualpipe ? "dualpipe" : "1f1b";
  c.scenario_yaml = fmt::format(
      "name: random-{}\nseed: {}\nmodel: tiny\ncluster: {{topology: tiny}}\n"
      "parallel: {{tp: {}, pp: {}, ep: {}, zero: {}, schedule: {}}}\n"
      "batch: {{seq_len: {}, global_batch_seqs: {}, micro_batch_seqs: {}}}\n"
      "communication: {{alltoall: {}}}\nnetwork: {}\n"
      "expert_load: {{kind: {}, steps: 2, bins: 16, tokens_per_rank: 1024}}\n",
      index, uniform_int(rng, 1, 1000), tp, pp, ep, pick(rng, {0, 1, 2, 3}), schedule, seq_len, global,
      micro, uniform_int(rng, 0, 1) ? "flat" : "deepep", uniform_int(rng, 0, 1) ? "flow" : "analytical",
      uniform_int(rng, 0, 1) ? "uniform" : "balancer");
  return c;
}

train::StepResult simulate(const Case& c) {
  const auto spec = model::load_hf_config_string(c.model_json, "config.json");
  const auto topology = topo::build_cluster(topo::parse_cluster_spec(core::YamlValue::parse_string(c.topology_yaml, "topology.yaml")));
  const auto scenario = input::parse_scenario(c.scenario_yaml, "scenario.yaml");
  return train::simulate_step(scenario, spec, topology, nullptr);
}

TEST(StepProperties, RandomSmallScenariosRunOrRefuseAndKeepInvariants) {
  constexpr int kCases = 240;
  core::Rng rng(20260);
  int simulated = 0, refused = 0;
  std::string first_refusals;  // shown when too few scenarios run, to see why the generator misses
  for (int i = 0; i < kCases; ++i) {
    const Case c = random_case(rng, i);
    SCOPED_TRACE(c.scenario_yaml + c.topology_yaml);
    train::StepResult r;
    try {
      r = simulate(c);
    } catch (const core::InputError& e) {
      ++refused;
      EXPECT_FALSE(e.problem().empty());
      if (refused <= 5) first_refusals += std::string("\n  ") + e.what();
      continue;
    }
    ++simulated;
    ASSERT_GT(r.step_time_s, 0);
    double sum = 0, compute = 0;
    for (const auto& share : r.breakdown) {
      EXPECT_GE(share.seconds, 0) << share.name;
      sum += share.seconds;
      if (share.category == "compute") compute += share.seconds;
    }
    EXPECT_NEAR(sum, r.step_time_s, 1e-9 * r.step_time_s);
    EXPECT_GT(compute, 0);
    EXPECT_GE(r.step_time_s, compute * (1 - 1e-9));
    // Everything serialised: every pass of the pp <= 4 ranks (all in the trace, max_trace_ranks 16), the
    // DP-phase spans, and each micro-batch's activation and gradient transfer over each of the pp - 1
    // stage boundaries (DualPipe runs micro-batches in both directions: twice as many).
    double serialised = 0;
    for (const auto& span : r.trace) serialised += span.end_s - span.start_s;
    serialised += 2.0 * (c.pp - 1) * r.microbatches * (c.dualpipe ? 2 : 1) * c.p2p_bound_s;
    EXPECT_LE(r.step_time_s, serialised * (1 + 1e-9));
    // Same scenario, same seed: the identical result, down to the JSON text.
    if (i % 8 == 0) {
      EXPECT_EQ(results::step_to_json(simulate(c)).dump(), results::step_to_json(r).dump());
    }
  }
  // A property test that refuses everything checks nothing: the generator builds layouts that fit, so at
  // least 200 of the 240 must simulate.
  RecordProperty("simulated", simulated);
  RecordProperty("refused", refused);
  EXPECT_GE(simulated, 200) << simulated << " simulated, " << refused << " refused; first refusals:" << first_refusals;
  EXPECT_EQ(simulated + refused, kCases);
}

}  // namespace
