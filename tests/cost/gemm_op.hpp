#pragma once
// A dense GEMM op of forward shape [m, k] x [k, n] for the cost-model tests: 2mnk FLOPs in each part.
#include "model/ops.hpp"

namespace k3::test {

inline model::Op gemm_op(double m, double n, double k) {
  model::Op op;
  op.name = "proj";
  op.kind = model::OpKind::DenseGemm;
  op.shape = model::GemmShape{m, n, k};
  op.fwd_flops = op.dgrad_flops = op.wgrad_flops = 2 * m * n * k;
  return op;
}

}  // namespace k3::test
