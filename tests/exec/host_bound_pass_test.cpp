// A pass whose host is slower than its kernels: the pass builder spreads each module's measured host time over
// its ops, and the executor lets the host set the pace; with the modules captured as CUDA graphs the GPU does.
#include <gtest/gtest.h>

#include "model/recompute.hpp"
#include "sim/exec/pass_executor.hpp"
#include "sim/workload/pass_builder.hpp"
#include "tests/cost/gemm_op.hpp"

namespace k3 {
namespace {

using core::SimTime;

class NoCollectives final : public exec::CollectiveLauncher {
 public:
  void launch(const workload::CollectiveCall&, std::function<void()>) override { FAIL() << "no collective expected"; }
};

nlohmann::json module(const std::string& name, double span_us, int launches, double launch_api_us) {
  return {{"name", name},       {"occurrences", 1},  {"launches", launches},        {"span_us", span_us},
          {"device_wait_us", 0}, {"sync_api_us", 0}, {"launch_api_us", launch_api_us}};
}

// attn(F): 400 us of host a run, 2 us a launch call; mlp(F): 150 us a run, 3 us a launch call.
cost::HostProfile hand_profile() {
  nlohmann::json modules = nlohmann::json::array();
  modules.push_back(module("attn(F)", 400, 20, 40));
  modules.push_back(module("mlp(F)", 150, 10, 30));
  for (const char* name : {"attn(B)", "mlp(B)", "dispatch(F)", "dispatch(B)", "combine(F)", "combine(B)"}) {
    modules.push_back(module(name, 10, 1, 1));
  }
  return cost::HostProfile::from_json({{"kind", "host_trace_profile"}, {"source", "hand"}, {"modules", modules}},
                                      "hand.json");
}

// Two attention projections and one MLP projection, each a 2048^3 GEMM (17.2 GFLOP: tens of microseconds on
// an H800, far under the host's 200 and 150 us for them).
std::vector<model::OpBlock> one_layer() {
  model::OpBlock b;
  b.kind = "attention+MLP";
  b.layer = 1;
  auto q = test::gemm_op(2048, 2048, 2048);
  q.name = "q_proj";
  auto o = q;
  o.name = "o_proj";
  auto up = q;
  up.name = "w1_up";
  up.recompute_modules = model::kRecomputeMlp;
  b.ops = {q, o, up};
  return {b};
}

std::vector<SimTime> step_durations(const workload::PassProgram& p) {
  std::vector<SimTime> out;
  for (const auto& s : p.threads.at(0).steps) out.push_back(std::get<workload::ComputeStep>(s).duration);
  return out;
}

TEST(HostBoundPass, TheHostSumSetsThePaceAndCudaGraphsHandItBackToTheGpu) {
  core::Provenance prov;
  const cost::OpCostModel cost(test::kH800, nullptr, cost::Precision::bf16, {}, prov);
  const auto blocks = one_layer();
  const auto profile = hand_profile();
  workload::PassBuildContext ctx;
  ctx.blocks = &blocks;
  ctx.cost = &cost;
  ctx.gpus = {0};
  ctx.host = &profile;
  const parallel::StageBlocks stage{{0}};

  // Each attention op carries half of attn(F)'s 400 us, the MLP op all of mlp(F)'s 150 us: the host issues
  // them at 200, 400 and 550 us. Each GEMM is done long before the next is issued, so the last one starts at
  // 550 us and the pass takes the host sum, 550 us, plus that GEMM.
  workload::PassProgram slow;
  workload::append_stage_pass(slow, ctx, stage, workload::PassPart::forward);
  const auto d = step_durations(slow);
  ASSERT_EQ(d.size(), 3u);
  ASSERT_LT(d[0], SimTime::from_seconds(200e-6));
  ASSERT_LT(d[1], SimTime::from_seconds(150e-6));
  engine::Simulator sim;
  NoCollectives none;
  const auto host_bound = exec::execute_pass(slow, sim, none);
  EXPECT_EQ(host_bound.duration, SimTime::from_seconds(550e-6) + d[2]);
  EXPECT_EQ(exec::busiest_host(slow), SimTime::from_seconds(550e-6));

  // Captured as CUDA graphs, a module costs one launch call: 2 us over the two attention ops (1 us each) and
  // 3 us for the MLP op, issued at 1, 2 and 5 us. The GEMMs (each over 4 us) then run back to back from the
  // first launch: 1 us + the GPU sum.
  ctx.cuda_graphs = {true, true, false, false};
  workload::PassProgram graphed;
  workload::append_stage_pass(graphed, ctx, stage, workload::PassPart::forward);
  ASSERT_GT(d[0], SimTime::from_seconds(4e-6));
  engine::Simulator sim2;
  const auto gpu_bound = exec::execute_pass(graphed, sim2, none);
  EXPECT_EQ(gpu_bound.duration, SimTime::from_seconds(1e-6) + d[0] + d[1] + d[2]);
  EXPECT_EQ(gpu_bound.threads[0].host_wait, SimTime::from_seconds(1e-6));
}

}  // namespace
}  // namespace k3
