#pragma once
// The end of a step: data-parallel gradient reduction (reduce-scatter under ZeRO >= 1, all-reduce
// without), the optimizer update on this rank's shard, and the all-gather of updated parameters.
// Megatron-LM overlaps the gradient reduction with the last backward pass and the parameter all-gather
// with the next step's first forward pass; only what sticks out of those passes is exposed.
#include <string>
#include <vector>

#include "sim/exec/pass_runner.hpp"
#include "sim/train/step_result.hpp"

namespace k3::train {

struct AccountingInputs;

struct DpPhase {
  double gradient_sync_s = 0, gradient_exposed_s = 0;
  double muon_gather_s = 0;
  double optimizer_s = 0;
  double param_gather_s = 0, param_gather_exposed_s = 0;
  // The load balancer's bias update per step (all MoE layers of the rank): QB's histogram kernel over the
  // router scores and the all-reduce of the balancer's global view (n x B counts for QB-histogram).
  double balancer_kernel_s = 0, balancer_allreduce_s = 0;
  std::vector<TimeShare> breakdown;
  exec::LinkClassBytes link_bytes;
  std::vector<TraceSpan> trace;
  std::vector<std::string> assumptions;
  double exposed_total_s() const {
    return gradient_exposed_s + muon_gather_s + optimizer_s + param_gather_exposed_s + balancer_kernel_s +
           balancer_allreduce_s;
  }
};

DpPhase simulate_dp_phase(const AccountingInputs& in, int rank, core::SimTime first_pass, core::SimTime last_pass);

}  // namespace k3::train
