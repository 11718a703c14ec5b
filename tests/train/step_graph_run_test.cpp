// The whole step as one engine run of its graph: exported and replayed it gives the step time to the picosecond;
// the DP buckets run part-way through the passes that produce them.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "model/model_spec.hpp"
#include "sim/input/scenario.hpp"
#include "sim/input/scenario_inputs.hpp"
#include "sim/train/step_setup.hpp"
#include "sim/train/step_simulator.hpp"
#include "topologies/topology.hpp"

namespace k3::train {
namespace {

// DeepSeek-V3 on 16 H800 nodes: PP4 DualPipe, EP32, DP32 with ZeRO-1 (parameter all-gathers and gradient
// reduce-scatters in buckets), 8 micro-batches per pipeline.
constexpr const char* kDsv3Small =
    "name: dsv3-small\n"
    "model: deepseek-v3\n"
    "cluster: {topology: h800-dsv3-2048, nodes: 16}\n"
    "parallel: {pp: 4, ep: 32, zero: 1, schedule: dualpipe}\n"
    "batch: {seq_len: 4096, global_batch_seqs: 256, micro_batch_seqs: 1}\n"
    "precision: {gemm: fp8, dispatch: fp8}\n"
    "communication: {alltoall: deepep, comm_sms: 20, node_limit: 4}\n";

// scenarios/qwen3-235b-h100-256.yaml with `sets` applied, one step without per-layer results.
StepResult run_qwen3_zoo_row(const std::vector<std::string>& sets) {
  auto in = input::load_scenario_inputs(std::string(K3SIM_SOURCE_DIR) + "/scenarios/qwen3-235b-h100-256.yaml", sets, "");
  StepOptions opt;
  opt.per_layer = false;
  return simulate_step(in.scenario, in.model, *in.topology, in.profile_or_null(), opt);
}

// The zoo's FSDP row: TP2, EP8, EDP32, no PP, FSDP, 4 sequences per micro-batch, full recompute; `extra` on top.
StepResult run_qwen3_fsdp_row(const std::string& extra = {}) {
  std::vector<std::string> sets{"parallel.ep=8", "parallel.pp=1", "parallel.vpp=1", "parallel.fsdp=true",
                                "parallel.zero=3", "parallel.schedule=1f1b", "batch.micro_batch_seqs=4",
                                "recompute=full"};
  if (!extra.empty()) sets.push_back(extra);
  return run_qwen3_zoo_row(sets);
}

struct Captured {
  nlohmann::json programs;
  std::string json;
  core::SimTime makespan;
  exec::StepGraph graph;
};

TEST(StepGraphRun, AnExportedStepGraphReplaysToThePicosecond) {
  const auto sc = input::parse_scenario(kDsv3Small, "test.yaml", {});
  const auto spec = model::load_model(sc.model);
  const auto topo = topo::load_topology(sc.topology, {"nodes=" + std::to_string(*sc.nodes)});
  Captured c;
  StepOptions opt;
  opt.on_graph = [&c](const StepGraphExport& e) {
    c.json = exec::graph_to_json(e.graph).dump();
    c.makespan = e.makespan;
    c.graph = e.graph;
    c.programs = e.programs;
  };
  const auto r = simulate_step(sc, spec, topo, nullptr, opt);
  ASSERT_FALSE(c.json.empty());
  EXPECT_EQ(core::SimTime::from_seconds(r.step_time_s), c.makespan);
  const auto reloaded = exec::graph_from_json(nlohmann::json::parse(c.json), "graph.json");
  EXPECT_EQ(replay_step_graph(reloaded, sc, topo), c.makespan);

  // Every pipeline rank ends with its optimizer. Chunk 0's gradient buckets depend on parts of its last backward pass
  // (their names say "part k of n"), and there are many: DeepSeek-V3's 4 stages hold billions of parameters per GPU
  // against 40 M-parameter buckets. Chunk 1 (DualPipe's other direction) is one bucket per group, issued after its
  // whole pass: Megatron-Core buckets only a rank's first model chunk.
  int optimizers = 0, first_chunk = 0, on_parts = 0, second_chunk = 0;
  for (const auto& n : c.graph.nodes) {
    optimizers += n.name == "optimizer step" ? 1 : 0;
    if (n.name.find("gradient reduce-scatter") == std::string::npos) continue;
    if (n.name.find("chunk 1") != std::string::npos) {
      ++second_chunk;
      continue;
    }
    ++first_chunk;
    on_parts += std::any_of(n.deps.begin(), n.deps.end(),
                            [&](exec::GraphNodeId d) { return c.graph.nodes[d].name.find(" (part ") != std::string::npos; });
  }
  EXPECT_EQ(optimizers, 4);
  EXPECT_GT(first_chunk, 8);
  EXPECT_EQ(on_parts, first_chunk);
  EXPECT_EQ(second_chunk, 4);
  // Every pass node names its distinct pass, and the export holds that pass's kernels: compute nodes with their
  // durations and the all-to-alls of its MoE layers.
  for (const auto& n : c.graph.nodes) {
    if (n.kind != exec::GraphNodeKind::compute || n.name == "optimizer step") continue;
    ASSERT_TRUE(c.programs.contains(n.program)) << n.name << " runs '" << n.program << "'";
  }
  const auto& kernels = c.programs.begin().value()["nodes"];
  EXPECT_TRUE(std::any_of(kernels.begin(), kernels.end(), [](const auto& k) { return k["kind"] == "COMP_NODE"; }));
  EXPECT_TRUE(std::any_of(kernels.begin(), kernels.end(), [](const auto& k) { return k["kind"] == "COMM_COLL_NODE"; }));  // 4 ranks, the dense group each (EP 32 of a 32-GPU stage: expert DP 1, no reduction)
}

TEST(StepGraphRun, WithoutOverlapTheGradientsWaitForTheLastPass) {
  // overlap_grad_reduce false: one reduction per group and chunk, after the rank's last pass, so the exposed
  // gradient reduction is at least as long as with buckets issued during the last backward passes.
  const auto sc = input::parse_scenario(kDsv3Small, "test.yaml", {});
  const auto late = input::parse_scenario(kDsv3Small, "test.yaml", {{"parallel.overlap_grad_reduce", "false"}});
  const auto spec = model::load_model(sc.model);
  const auto topo = topo::load_topology(sc.topology, {"nodes=" + std::to_string(*sc.nodes)});
  const auto overlapped = simulate_step(sc, spec, topo, nullptr, {});
  const auto after = simulate_step(late, spec, topo, nullptr, {});
  EXPECT_GT(after.step_time_s, overlapped.step_time_s);
}

TEST(StepGraphRun, TheQwen3FsdpLayoutKeepsEveryLinkClassWithinItsCapacity) {
  // shared/validation/megatron-moe-qwen3-235b.csv's FSDP row: TP2, EP8, EDP32, no PP, FSDP, 4 sequences per
  // micro-batch, full recompute. Its expert all-gathers and reduce-scatters run side by side on the same NICs; the
  // step's link report (bytes over capacity x step time per class) stays within 100 %, and the step graph's and
  // the passes' networks check every link (an internal error otherwise).
  const auto r = run_qwen3_fsdp_row();
  ASSERT_FALSE(r.links.empty());
  for (const auto& l : r.links) {
    EXPECT_LE(l.mean_utilisation, 1.0) << l.link_class;
    if (l.link_class == "nic") {
      EXPECT_GT(l.bytes, 0);  // the DP x EDP groups span the nodes
    }
  }
}

// Issue 49: parallel.fsdp_regather. On the FSDP row above every NIC byte is FSDP's (TP 2 and EP 8 stay inside a
// node). Per parameter and micro-batch the default moves a forward all-gather (2 B, BF16), a backward all-gather
// (2 B) and a reduce-scatter (4 B, fp32): 8 B. Keeping the forward's parameters for the backward (micro_batch)
// drops the second gather: 6 B, 0.75 of the NIC bytes, and holds the whole weights. Once per step is ZeRO-1.
TEST(StepGraphRun, FsdpThatKeepsTheForwardsParametersMovesThreeQuartersOfTheBytes) {
  auto run = [](const char* when) { return run_qwen3_fsdp_row(std::string("parallel.fsdp_regather=") + when); };
  const auto nic = [](const StepResult& r) {
    for (const auto& l : r.links) if (l.link_class == "nic") return l.bytes;
    return 0.0;
  };
  const auto held = [](const StepResult& r) {
    for (const auto& m : r.memory) if (m.name == "gathered weights (FSDP)") return m.bytes;
    return 0.0;
  };
  const auto both = run("forward_and_backward"), once = run("micro_batch"), step = run("step");
  EXPECT_NEAR(nic(once) / nic(both), 0.75, 1e-12);
  EXPECT_EQ(held(both), 0.0);
  EXPECT_GT(held(once), 0.0);
  EXPECT_EQ(step.layout.zero_stage, 1);
  EXPECT_LT(nic(step), nic(once));
}

// Issue 49: optimizer.offload_fraction 1 on Qwen3-235B's H100 layout flattened to one pipeline stage. The whole
// update runs on the host: per parameter of the GPU's shard, 4 B of fp32 gradient down and 2 B of BF16 weight up
// PCIe Gen5 x16 (64 GB/s each way: 62.5 and 31.3 ps) beside AdamW's 30 B at the DGX H100 host's 76.8 GB/s of DRAM
// per GPU (391 ps), the longest. The shard is what the optimizer state held in HBM before, at 12 B per parameter
// (fp32 master and two fp32 moments); afterwards none of it is.
TEST(StepGraphRun, AnOffloadedOptimizerStepRunsAtTheHostsDramBandwidth) {
  auto run = [](const char* fraction) {
    return run_qwen3_zoo_row({"parallel.ep=8", "parallel.pp=1", "parallel.vpp=1", "parallel.zero=1",
                              "parallel.schedule=1f1b", "batch.micro_batch_seqs=4", "recompute=full",
                              std::string("optimizer.offload_fraction=") + fraction});
  };
  const auto named = [](const auto& items, const std::string& name) {
    for (const auto& i : items) if (i.name == name) return static_cast<double>(i.seconds);
    return -1.0;
  };
  const auto state = [](const StepResult& r) {
    for (const auto& m : r.memory) if (m.name == "optimizer state") return m.bytes;
    return -1.0;
  };
  const auto gpu = run("0"), host = run("1");
  const double shard = state(gpu) / 12;
  EXPECT_DOUBLE_EQ(state(host), 0.0);
  EXPECT_NEAR(named(host.breakdown, "optimizer step"), shard * 30 / 76.8e9, 1e-6 * shard * 30 / 76.8e9);
  EXPECT_LT(named(gpu.breakdown, "optimizer step"), named(host.breakdown, "optimizer step"));
  // Muon does not run on the host, and a share is at most 1: both refused naming the key.
  for (const std::vector<std::string>& sets : {std::vector<std::string>{"optimizer.kind=muon", "optimizer.offload_fraction=0.5"},
                                               std::vector<std::string>{"optimizer.offload_fraction=1.5"}}) {
    try {
      input::load_scenario_inputs(std::string(K3SIM_SOURCE_DIR) + "/scenarios/qwen3-235b-h100-256.yaml", sets, "");
      ADD_FAILURE() << sets.back() << " accepted";
    } catch (const core::InputError& e) {
      EXPECT_EQ(e.where().key, "optimizer.offload_fraction");
    }
  }
}

// Issue 49: parallel.fsdp_offload on the FSDP row above (PyTorch FSDP's CPU offload). Each rank's shards leave HBM:
// the weights, gradients and optimizer state lines fall to 0 and the total by exactly their sum. The optimizer steps
// on the host at AdamW's 30 B per parameter over the DGX H100's 76.8 GB/s of DRAM per GPU, the shard being the state
// held before at 12 B per parameter (its gradients went down and its weights come up in the passes, on the network's
// host ports). Every layer's gather now waits for its shard to come up PCIe, so the exposed all-gather time grows.
TEST(StepGraphRun, FsdpOffloadMovesTheShardsToTheHostAndItsCopiesIntoTheGathers) {
  auto run = [](const char* offload) { return run_qwen3_fsdp_row(std::string("parallel.fsdp_offload=") + offload); };
  const auto bytes = [](const StepResult& r, const std::string& name) {
    for (const auto& m : r.memory) if (m.name == name) return m.bytes;
    return -1.0;
  };
  const auto seconds = [](const StepResult& r, const std::string& name) {
    for (const auto& b : r.breakdown) if (b.name == name) return static_cast<double>(b.seconds);
    return 0.0;
  };
  const auto gpu = run("false"), host = run("true");
  const double shards = bytes(gpu, "weights") + bytes(gpu, "gradients") + bytes(gpu, "optimizer state");
  for (const char* name : {"weights", "gradients", "optimizer state"}) EXPECT_DOUBLE_EQ(bytes(host, name), 0.0) << name;
  EXPECT_NEAR(memory_total(host.memory), memory_total(gpu.memory) - shards, 1e-9 * shards);
  const double shard_params = bytes(gpu, "optimizer state") / 12;
  EXPECT_NEAR(seconds(host, "optimizer step"), shard_params * 30 / 76.8e9, 1e-6 * shard_params * 30 / 76.8e9);
  EXPECT_GT(seconds(host, "exposed: all-gather"), seconds(gpu, "exposed: all-gather"));
  EXPECT_GT(host.step_time_s, gpu.step_time_s);
  // The host ports' traffic: per micro-batch every GPU brings each shard up twice (the forward's gather and the
  // backward's) and sends its gradient down once, 3 x 4 B per parameter of its shard. DP = 256 / (TP 2) = 128, so
  // 2,048 sequences / (128 x 4 per micro-batch) = 4 micro-batches: 256 GPUs x 4 x 12 B x shard.
  double host_bytes = -1;
  for (const auto& l : host.links) if (l.link_class == "host") host_bytes = l.bytes;
  EXPECT_NEAR(host_bytes, 256.0 * 4 * 12 * shard_params, 1e-9 * host_bytes);
  for (const auto& l : gpu.links) EXPECT_NE(l.link_class, "host");
}

TEST(StepGraphRun, FsdpOffloadIsRefusedWithoutFsdpOrBesideAnOptimizerShare) {
  const std::string file = std::string(K3SIM_SOURCE_DIR) + "/scenarios/qwen3-235b-h100-256.yaml";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"parallel.fsdp_offload=true"}, "parallel.fsdp_offload"},
      {{"parallel.fsdp=true", "parallel.zero=3", "parallel.fsdp_offload=true", "optimizer.offload_fraction=0.5"},
       "optimizer.offload_fraction"},
      {{"parallel.fsdp=true", "parallel.zero=3", "parallel.fsdp_offload=true", "optimizer.kind=muon"},
       "parallel.fsdp_offload"},
  };
  for (const auto& [sets, key] : cases) {
    try {
      input::load_scenario_inputs(file, sets, "");
      ADD_FAILURE() << sets.back() << " accepted";
    } catch (const core::InputError& e) {
      EXPECT_EQ(e.where().key, key) << sets.back();
    }
  }
}

TEST(StepGraphRun, TheAllToAllOverlapShortensQwen3sInterleavedStep) {
  // scenarios/qwen3-235b-h100-256.yaml is the model zoo's first row (TP2, EP32, PP8 x VPP4, DeepEP). With
  // Megatron-Core's EP all-to-all overlap each steady-state backward runs beside the next forward, their all-to-alls
  // hidden behind each other's compute: the step is shorter and its exposed all-to-all time smaller.
  auto run = [](const char* overlap) { return run_qwen3_zoo_row({std::string("parallel.a2a_overlap=") + overlap}); };
  const auto exposed_a2a = [](const StepResult& r) {
    double s = 0;
    for (const auto& t : r.breakdown) s += t.name.find("exposed: all-to-all") == 0 ? t.seconds : 0;
    return s;
  };
  const auto plain = run("false"), overlapped = run("true");
  EXPECT_LT(overlapped.step_time_s, plain.step_time_s);
  EXPECT_LT(exposed_a2a(overlapped), exposed_a2a(plain));
  EXPECT_EQ(overlapped.layout.schedule, "interleaved+a2a-overlap");
}

}  // namespace
}  // namespace k3::train
