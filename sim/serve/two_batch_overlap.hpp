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
  // Communication only: sent in this many equal pieces, piece i once the compute stage just before it has done
  // i / pieces of its work, and waited for only after the last (the combine polling the down GEMM's per-expert
  // signals: scheduler.overlap combine_with_down_gemm). 1: issued after that compute ends and waited for at once.
  int pieces = 1;
  // Compute only: issued after the communication stage just before it and run while that is in flight, which is
  // waited for after it (the shared experts beside the dispatch).
  bool beside_communication = false;
};

// How long an iteration of `micro_batches` (1 or 2) micro-batches takes, each running `stages` (one
// micro-batch's, in order). With one micro-batch and no stage in pieces, the sum of the stages.
core::Seconds iteration_on_streams(const std::vector<IterationStage>& stages, int micro_batches,
                                   double comm_sm_slowdown);
inline core::Seconds two_batch_iteration(const std::vector<IterationStage>& stages, double comm_sm_slowdown) {
  return iteration_on_streams(stages, 2, comm_sm_slowdown);
}

}  // namespace k3::serve
