// One op's cost look-up in the shipped H200 kernel tables (issue 41: at most 1 us median), against the same op
// priced by the roofline in the same run: a dense GEMM (a 3-axis table), a routed-expert GEMM (the nearest fused-MoE
// shape), MLA attention and KDA, forward and both backward parts each.
#include <benchmark/benchmark.h>

#include "sim/cost/cost_model.hpp"
#include "sim/cost/kernel_table_import.hpp"

namespace {

using namespace k3;

const cost::DeviceModel kH200{"H200-SXM", 990e12, 1979e12, 4.8e12, 132, "NVIDIA H200 datasheet"};

model::Op op_of(int which) {
  model::Op op;
  switch (which) {
    case 0:  // K3's o_proj at 4,096 tokens
      op.kind = model::OpKind::DenseGemm;
      op.shape = model::GemmShape{4096, 7168, 12288};
      op.fwd_flops = op.dgrad_flops = op.wgrad_flops = 2.0 * 4096 * 7168 * 12288;
      break;
    case 1:  // K3's routed up-projection at EP 64: 14 local experts, 1,170 tokens each
      op.kind = model::OpKind::ExpertGemm;
      op.shape = model::ExpertGemmShape{14, 1170, 6144, 3584};
      op.fwd_flops = op.dgrad_flops = op.wgrad_flops = 2.0 * 14 * 1170 * 6144 * 3584;
      break;
    case 2:  // K3's MLA core at 4K
      op.kind = model::OpKind::AttentionCore;
      op.shape = model::AttentionShape{model::AttentionKind::MLA, 96, 96, 192, 128, 4096, 1, true, 0, 0};
      op.fwd_flops = 2.0 * 96 * 320 * 4096.0 * 4096 / 2;
      op.dgrad_flops = 2.5 * op.fwd_flops;
      break;
    default:  // K3's KDA scan at 4K
      op.kind = model::OpKind::KdaChunkScan;
      op.shape = model::ScanShape{96, 128, 128, 64, 4096};
      op.fwd_flops = 4096.0 * 96 * (6 * 128 * 128 + 3 * 64 * 128 + 64 * 64);
      op.dgrad_flops = 2 * op.fwd_flops;
      break;
  }
  return op;
}

void run(benchmark::State& state, bool measured) {
  core::Provenance prov;
  cost::KernelChoice k;
  if (measured) k.measured = cost::shipped_kernel_tables_of("H200-SXM");
  const cost::OpCostModel c(kH200, nullptr, cost::Precision::bf16, k, prov);
  const auto op = op_of(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(c.time(op));
}

void BM_OpCostMeasured(benchmark::State& state) { run(state, true); }
void BM_OpCostRoofline(benchmark::State& state) { run(state, false); }

}  // namespace

BENCHMARK(BM_OpCostMeasured)->DenseRange(0, 3)->ArgName("op");
BENCHMARK(BM_OpCostRoofline)->DenseRange(0, 3)->ArgName("op");
BENCHMARK_MAIN();
