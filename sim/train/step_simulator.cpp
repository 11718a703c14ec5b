#include "sim/train/step_simulator.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include "core/error.hpp"
#include "core/parallel_for.hpp"
#include "core/threads.hpp"
#include "sim/exec/pass_batch.hpp"
#include "sim/exec/pass_runner.hpp"
#include "sim/exec/pipeline_graph.hpp"
#include "sim/train/dp_phase.hpp"
#include "sim/train/expert_load_sample.hpp"
#include "sim/train/layer_results.hpp"
#include "sim/train/op_trace.hpp"
#include "sim/train/optimizer_update.hpp"
#include "sim/train/pass_context.hpp"
#include "sim/train/stage_passes.hpp"
#include "sim/train/step_accounting.hpp"
#include "sim/train/step_plan.hpp"
#include "sim/train/step_setup.hpp"
#include "sim/train/symmetry_check.hpp"

namespace k3::train {

namespace {

using core::InputError;
using core::SimTime;

StepPlan plan_of(const StepSpec& sc, const model::ModelSpec& spec, const topo::Topology& topo, const cost::OpCostModel& cost) {
  const auto& gpu = cost.device();
  StepPlanOptions o;
  o.peak_flops_per_s = std::max({gpu.bf16_flops_per_s, gpu.fp8_flops_per_s, gpu.mxfp8_flops_per_s, gpu.nvfp4_flops_per_s});
  o.gemm_precision = cost.gemm_precision();
  return make_step_plan(sc, spec, static_cast<std::int64_t>(topo.gpu_count()), topo.gpus_per_node(), o);
}

// The step graph as it ran: every pass of every rank, the sends between stages and the DP work, and their times.
struct GraphRun {
  exec::PipelineGraph pipeline;
  exec::GraphTimes times;
  parallel::PipelineTimeline timeline;
  DpWork dp;
};

}  // namespace

// A step from its scenario to its plan, cost model, network and expert load: what the passes are built from.
struct PreparedStep::Parts {
  Parts(const StepSpec& scenario, const model::ModelSpec& model, const topo::Topology& topology,
        const cost::CalibrationProfile* profile, const StepOptions& options)
      : sc(scenario), spec(model), topo(topology), opt(options),
        prov(scenario.assumption_overrides),
        cost(make_step_cost_model(scenario, topology, profile, prov)),
        runner(topology, make_step_runner_config(scenario, topology, options.reuse, prov)),
        plan(plan_of(scenario, model, topology, cost)) {
    if (opt.simulate_every_rank) {
      for (std::size_t r = 0; r < plan.simulated.speed_class.size(); ++r) plan.simulated.speed_class[r] = static_cast<int>(r);
    }
  }

  AccountingInputs inputs(const PassMemo& memo, const GraphRun& run) {
    return AccountingInputs{sc, spec, topo, plan, run.timeline, memo, cost, runner, load.sample, events, opt,
                            prov, run.pipeline, run.times, run.dp};
  }

  const StepSpec& sc;
  const model::ModelSpec& spec;
  const topo::Topology& topo;
  StepOptions opt;
  core::Provenance prov;  // constructed before the cost model and the runner, which register in it
  cost::OpCostModel cost;
  exec::PassRunner runner;
  StepPlan plan;
  StepExpertLoad load;
  SymmetryCheckResult symmetry;
  std::optional<PassContexts> contexts;
  std::optional<StagePasses> passes;
  std::optional<exec::PassBatch> batch;  // each pass class's representative, in passes->representatives()' order
  StepResult described;
  double events = 0;
};

PreparedStep::PreparedStep(const StepSpec& scenario, const model::ModelSpec& spec, const topo::Topology& topology,
                           const cost::CalibrationProfile* profile, const StepOptions& options)
    : parts_(std::make_unique<Parts>(scenario, spec, topology, profile, options)) {
  auto& p = *parts_;
  p.load = sample_step_expert_load(p.sc, p.spec, p.plan, p.topo.gpus_per_node(), p.opt.reuse, p.prov);
  p.described = describe_step(p.inputs({}, {}));
  if (p.opt.stop_when_over_memory && !p.described.fits_in_memory) return;
  const auto first_dispatch = p.load.by_block.empty() ? nullptr : p.load.by_block.begin()->second.dispatch;
  p.symmetry = choose_network_scope({p.sc.network_scope, p.sc.source, p.opt.reuse}, p.plan, first_dispatch, p.runner, p.topo);
  p.contexts.emplace(p.sc, p.spec, p.plan, p.cost, p.load.by_block, p.opt.simulate_every_rank);
  p.passes.emplace(p.plan, *p.contexts);
  // The passes of different stage classes are independent simulations, and which of them the schedule runs does
  // not depend on what they cost: one per class, on its representative.
  std::vector<workload::PassProgram> programs;
  for (const auto& [key, rep] : p.passes->representatives()) programs.push_back(p.passes->program_of(rep));
  p.batch.emplace(p.runner, std::move(programs));
}

PreparedStep::~PreparedStep() = default;
PreparedStep::PreparedStep(PreparedStep&&) noexcept = default;
PreparedStep& PreparedStep::operator=(PreparedStep&&) noexcept = default;

exec::PassBatch* PreparedStep::passes() { return parts_->batch ? &*parts_->batch : nullptr; }

StepResult PreparedStep::finish() {
  K3SIM_ASSERT(parts_ != nullptr, "a prepared step finished twice");
  const auto owned = std::move(parts_);
  auto& p = *owned;
  if (!p.batch) return std::move(p.described);
  auto& passes = *p.passes;
  const auto runs = p.batch->finish(core::resolve_threads(p.opt.threads));
  std::size_t i = 0;
  for (const auto& [key, rep] : passes.representatives()) {
    p.events += static_cast<double>(runs[i].outcome.events);
    passes.record(key, summarize_pass(p.batch->program(i), runs[i].outcome, runs[i].bytes));
    ++i;
  }
  // The step graph: every pass of every rank (each as long as its own engine run made it), the sends between
  // stages and the DP work, run together on one engine and network.
  GraphRun run;
  exec::PipelineGraphCosts costs;
  costs.passes = passes.recorded_durations();
  costs.passes.blocking_p2p = p.sc.communication.blocking_pipeline_p2p;
  // BF16 activations (or their gradients) of one micro-batch.
  const double activation_bytes = p.plan.microbatch.tokens() * p.spec.hidden * 2.0;
  costs.transfer = [&p, activation_bytes](int from, int to) { return pipeline_transfer(p.plan.map, activation_bytes, from, to); };
  const auto nccl = register_nccl_sms(p.prov);
  costs.send_sms = nccl.p2p;
  run.pipeline = exec::pipeline_graph(p.plan.schedule, costs);
  if (p.opt.on_graph) passes.name_programs(run.pipeline);
  run.dp = add_dp_work(p.inputs(passes.memo(), run), run.pipeline, nccl.ring);
  run.times = exec::run_step_graph(run.pipeline.graph, &p.runner, p.topo.gpu_type().sms);
  p.events += static_cast<double>(run.times.events);
  run.timeline = exec::pipeline_timeline(run.pipeline, run.times);
  if (p.opt.on_graph) p.opt.on_graph({run.pipeline.graph, run.times.makespan, passes.programs_json(*p.batch)});
  auto result = account_step(p.inputs(passes.memo(), run), std::move(p.described));
  result.symmetry = p.symmetry;
  if (p.sc.gpu_speed.modelled()) {
    const auto& blocks = p.plan.simulated;
    auto& g = result.gpu_speed;
    std::int64_t in_ranges = 0;
    for (const auto& r : p.sc.gpu_speed.ranges) in_ranges += r.count;
    g = {true, p.sc.gpu_speed.spread, static_cast<int>(p.sc.gpu_speed.slow.size()), in_ranges, blocks.slowest_gpu,
         blocks.slowest_speed, {}};
    for (int r = 0; r < p.plan.schedule.ranks; ++r) g.rank_slowest.push_back(blocks.slowest_in(r));
  }
  if (p.opt.op_trace) {
    result.op_trace = trace_ops(run.timeline, p.runner, p.topo,
                                [&passes](int rank, const parallel::Pass& pass) { return passes.traced_program(rank, pass); });
  }
  if (p.opt.per_layer) result.layers = simulate_layer_kinds(p.plan.blocks, p.contexts->for_rank(0, false), p.runner);
  if (const auto unused = p.prov.unused_overrides(); !unused.empty()) {
    throw InputError({p.sc.source, unused.front(), 0}, "no number of this step is called '" + unused.front() + "'",
                     "the ids of the step's provenance entries (`k3sim run --json`, key provenance)");
  }
  result.provenance = p.prov.entries();
  return result;
}

StepResult simulate_step(const StepSpec& scenario, const model::ModelSpec& spec, const topo::Topology& topology,
                         const cost::CalibrationProfile* profile, const StepOptions& options) {
  PreparedStep step(scenario, spec, topology, profile, options);
  if (auto* passes = step.passes()) {
    core::parallel_for(passes->size(), core::resolve_threads(options.threads), [&](std::size_t i) { passes->try_run(i); });
  }
  return step.finish();
}

// The pipeline run on passes that only compute, each on one GPU's stream with the routed load balanced, then the
// shortest optimizer update of any pipeline rank. Every simulated pass lasts at least as long as its busiest GPU's
// compute stream (execute_pass runs a GPU's compute steps one after another) and as its busiest host (a host
// issues its thread's steps one after another), that GPU carries at least the balanced routed load (the busiest
// GPU's share is at least the mean), and an op's time does not fall as its tokens grow; the pipeline's makespan
// does not fall when a pass gets shorter or a transfer is left out (every start is a max of sums); and the step
// adds the data-parallel phase's exposed time, which holds the critical rank's optimizer update (dp_phase.hpp).
core::Seconds step_time_lower_bound(const StepSpec& scenario, const model::ModelSpec& spec,
                                    const topo::Topology& topology, const cost::CalibrationProfile* profile) {
  core::Provenance prov(scenario.assumption_overrides);
  const auto cost = make_step_cost_model(scenario, topology, profile, prov);
  const auto plan = plan_of(scenario, spec, topology, cost);
  const PassContexts contexts(scenario, spec, plan, cost, {});
  const StagePasses passes(plan, contexts);
  // Each class on the program of the representative the simulation times it on.
  std::map<StagePasses::Key, SimTime> compute;
  for (const auto& [key, rep] : passes.representatives()) {
    const auto program = passes.program_of(rep);
    compute[key] = std::max(exec::busiest_compute_stream(program), exec::busiest_host(program));
  }
  double optimizer_s = std::numeric_limits<double>::infinity();
  for (int rank = 0; rank < plan.schedule.ranks; ++rank) {
    optimizer_s = std::min(optimizer_s, optimizer_update(scenario, plan.map.layout(), plan.blocks, plan.stages,
                                                         plan.schedule.stages_held(rank), cost,
                                                         topology.gpu_type())
                                           .seconds);
  }
  const auto compute_only = passes.costs([&compute](const StagePasses::Key& key) { return compute.at(key); });
  return exec::run_pipeline(plan.schedule, {compute_only, {}}, nullptr, false).makespan.seconds() + optimizer_s;
}

}  // namespace k3::train
