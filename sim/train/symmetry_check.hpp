#pragma once
// The symmetry shortcut, checked. A step simulates one block of GPUs (whole TP, CP and EP groups) and takes
// every other block to behave alike. The bytes do; the contention need not: where EP groups of different
// blocks share leaf-spine links (an oversubscribed fabric, groups spanning leaves), the other blocks' flows
// slow this block's all-to-all, which the block alone never sees. The check runs the first MoE layer's
// dispatch of the block alone and beside the same collective of every other block of the job, on the
// analytical network (within 5% of the flow model per collective, tests/net/network_agreement_test.cpp), and
// the step's all-to-alls run in full-fabric mode where the two differ by more than kSymmetryBound. Only the
// blocks whose transfers cross a link the block's own cross are simulated beside it (a neighbour's
// neighbours slow the neighbour, which the check does not follow further).
#include <cstdint>
#include <memory>
#include <string>

#include "sim/exec/pass_runner.hpp"
#include "sim/train/step_plan.hpp"
#include "sim/train/step_result.hpp"
#include "sim/train/step_reuse.hpp"
#include "sim/workload/pass_program.hpp"

namespace k3::train {

inline constexpr double kSymmetryBound = 0.02;

// `call`: the all-to-all of the block's EP groups; `block_gpus` consecutive GPUs hold the block, `job_gpus`
// the job (a multiple of it).
SymmetryCheckResult check_symmetry(const exec::PassRunner& runner, const topo::Topology& topology,
                                   const workload::CollectiveCall& call, int block_gpus, std::int64_t job_gpus);

struct NetworkScopeOptions {
  NetworkScope scope = NetworkScope::automatic;  // network_scope as the scenario wrote it
  std::string source;                            // the scenario file, named in errors
  StepReuse* reuse = nullptr;                    // shares the check between runs of one band; may be null
};

// The step's network scope: `runner` runs every all-to-all over the whole fabric where the scenario asks for it or
// where the check (on the first MoE layer's dispatch, `first_dispatch`; null without one) finds the block shortcut
// off by more than kSymmetryBound. Throws core::InputError for fabric with spread EP groups.
SymmetryCheckResult choose_network_scope(const NetworkScopeOptions& options, const StepPlan& plan,
                                         const std::shared_ptr<const workload::TrafficMatrix>& first_dispatch, exec::PassRunner& runner,
                                         const topo::Topology& topology);

}  // namespace k3::train
