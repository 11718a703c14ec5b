#pragma once
// Two-batch overlap (SGLang's and DeepSeek's TBO) simulated rather than assumed. An iteration's batch runs as two
// micro-batches on one GPU of the instance (every GPU does the same work: the routed load is uniform), each going
// through its stages in order: compute, or a communication kernel (DeepEP's dispatch and combine, the TP
// all-reduce). The compute of both micro-batches shares the GPU's one compute stream in the order it becomes ready
// (exec::execute_pass). The communication kernels run one at a time on one communication stream (DeepEP issues
// every kernel of a buffer on its one stream). Each holds the SMs its library runs on from its issue to its end,
// so compute beside it runs `comm_sm_slowdown` times slower. How much the overlap gains comes out of the run: with
// no communication the two micro-batches' compute runs back to back; with no compute, their communication does.
#include <vector>

#include "core/units.hpp"

namespace k3::serve {

struct IterationStage {
  core::Seconds seconds = 0;
  bool communication = false;
};

// How long an iteration of two micro-batches takes, each running `stages` (one micro-batch's, in order).
core::Seconds two_batch_iteration(const std::vector<IterationStage>& stages, double comm_sm_slowdown);

}  // namespace k3::serve
