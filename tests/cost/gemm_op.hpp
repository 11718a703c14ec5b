#pragma once
// A dense GEMM op of forward shape [m, k] x [k, n] for the cost-model tests: 2mnk FLOPs in each part.
#include "model/ops.hpp"
#include "sim/cost/cost_model.hpp"

namespace k3::test {

inline model::Op gemm_op(double m, double n, double k) {
  model::Op op;
  op.name = "proj";
  op.kind = model::OpKind::DenseGemm;
  op.shape = model::GemmShape{m, n, k};
  op.fwd_flops = op.dgrad_flops = op.wgrad_flops = 2 * m * n * k;
  return op;
}

// H800 SXM datasheet peaks: BF16 989, FP8 1979 TFLOP/s dense; 3.35 TB/s HBM3; 132 SMs.
inline const cost::DeviceModel kH800{"H800-SXM", 989e12, 1979e12, 3.35e12, 132, "test"};

}  // namespace k3::test
