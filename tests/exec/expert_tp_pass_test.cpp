// Expert tensor parallelism in a training pass: an ETP rank holds 1/ETP of each routed expert's intermediate
// columns, so the activation between its up and down GEMMs works on that slice only.
#include <gtest/gtest.h>

#include "sim/workload/op_sharding.hpp"
#include "sim/workload/pass_builder.hpp"
#include "tests/cost/gemm_op.hpp"

namespace k3 {
namespace {

// SiTU-GLU-like activation over 8,192 routed rows of 2 x 4,096 GLU inputs, 4,096 outputs (BF16).
model::Op routed_activation() {
  model::Op o;
  o.name = "routed_activation";
  o.kind = model::OpKind::Elementwise;
  o.routed = true;
  const double elements = 8192.0 * 2 * 4096;
  o.shape = model::ElementwiseShape{elements, 4};
  o.fwd_flops = 4 * elements;
  o.dgrad_flops = 2 * o.fwd_flops;
  o.read_bytes = elements * 2;
  o.write_bytes = 8192.0 * 4096 * 2;
  return o;
}

core::SimTime activation_time(const model::Op& op, int etp) {
  core::Provenance prov;
  const cost::OpCostModel cost(test::kH800, nullptr, cost::Precision::bf16, {}, prov);
  model::OpBlock b;
  b.kind = "moe";
  b.layer = 1;
  b.ops = {op};
  const std::vector<model::OpBlock> blocks{b};
  workload::PassBuildContext ctx;
  ctx.blocks = &blocks;
  ctx.cost = &cost;
  ctx.gpus = {0};
  ctx.tp = etp;
  ctx.etp = etp;
  workload::PassProgram p;
  workload::append_stage_pass(p, ctx, parallel::StageBlocks{{0}}, workload::PassPart::forward);
  core::SimTime total = core::SimTime::zero();
  for (const auto& s : p.threads.at(0).steps) total += std::get<workload::ComputeStep>(s).duration;
  return total;
}

TEST(ExpertTensorParallelPass, TheRoutedActivationRunsOnTheRanksSliceOfTheIntermediate) {
  // TP = ETP = 2 without sequence parallelism (the TP ranks share the tokens and split the experts): each rank's
  // activation is the one of half the columns, the op shard_for_tp makes, run at ETP 1. Before this it ran whole.
  const auto op = routed_activation();
  const auto split = activation_time(op, 2);
  EXPECT_EQ(split, activation_time(workload::shard_for_tp(op, 2, /*sequence_parallel=*/true), 1));
  EXPECT_LT(split, activation_time(op, 1));
}

}  // namespace
}  // namespace k3
