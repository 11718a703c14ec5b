#include "sim/train/step_simulator.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "core/threads.hpp"
#include "model/totals.hpp"
#include "core/error.hpp"
#include "core/parallel_for.hpp"
#include "sim/train/dp_phase.hpp"
#include "sim/train/expert_load_sample.hpp"
#include "sim/train/layer_results.hpp"
#include "sim/train/layout_checks.hpp"
#include "sim/train/op_trace.hpp"
#include "sim/workload/moe_sampling.hpp"
#include "sim/workload/pass_builder.hpp"
#include "sim/exec/pass_batch.hpp"
#include "sim/exec/pass_runner.hpp"
#include "sim/exec/pipeline_graph.hpp"
#include "sim/exec/program_graph.hpp"
#include "sim/parallel/pipeline_schedule.hpp"
#include "sim/parallel/rank_mapping.hpp"
#include "sim/parallel/stage_split.hpp"
#include "sim/train/step_accounting.hpp"
#include "sim/train/step_memory.hpp"
#include "sim/train/step_plan.hpp"
#include "sim/train/step_setup.hpp"
#include "sim/train/symmetry_check.hpp"

namespace k3::train {

namespace {

using core::InputError;
using core::SimTime;

}  // namespace

class StepRun {
 public:
  StepRun(const StepSpec& sc, const model::ModelSpec& spec, const topo::Topology& topo,
          const cost::CalibrationProfile* profile, const StepOptions& opt)
      : sc_(sc), spec_(spec), topo_(topo), opt_(opt),
        prov_(sc.assumption_overrides),
        cost_(make_step_cost_model(sc, topo, profile, prov_)),
        runner_(topo, make_step_runner_config(sc, topo, opt.reuse, prov_)) {}

  // The step up to its passes: layout, expert load, memory, network scope, and the batch of passes the
  // pipeline runs (none for a layout over memory where the options stop there).
  void prepare() {
    prepare_layout();
    prepare_moe(plan_->microbatch);
    described_ = describe_step(accounting_inputs());
    if (opt_.stop_when_over_memory && !described_.fits_in_memory) return;
    choose_network_scope();
    list_passes();
  }

  exec::PassBatch* passes() { return batch_ ? &*batch_ : nullptr; }

  StepResult finish() {
    if (!batch_) return std::move(described_);
    collect_passes(core::resolve_threads(opt_.threads));
    // The step graph: every pass of every rank (each as long as its own engine run made it), the sends between
    // stages and the DP work, run together on one engine and network.
    exec::PipelineGraphCosts costs;
    costs.passes.forward = [this](int r, int c) { return pass(r, c, workload::PassPart::forward).duration; };
    costs.passes.backward = [this](int r, int c) { return pass(r, c, workload::PassPart::backward).duration; };
    costs.passes.weight = [this](int r, int c) { return pass(r, c, workload::PassPart::weight).duration; };
    costs.passes.forward_backward = [this](int r, int f, int b) { return overlapped(r, f, b).duration; };
    costs.passes.blocking_p2p = sc_.communication.blocking_pipeline_p2p;
    // BF16 activations (or their gradients) of one micro-batch.
    const double activation_bytes = plan_->microbatch.tokens() * spec_.hidden * 2.0;
    costs.transfer = [this, activation_bytes](int from, int to) { return pipeline_transfer(plan_->map, activation_bytes, from, to); };
    const auto nccl = register_nccl_sms(prov_);
    costs.send_sms = nccl.p2p;
    pipeline_ = exec::pipeline_graph(plan_->schedule, costs);
    if (opt_.on_graph) name_programs();
    dp_ = add_dp_work(accounting_inputs(), pipeline_, nccl.ring);
    times_ = exec::run_step_graph(pipeline_.graph, &runner_, topo_.gpu_type().sms);
    events_ += static_cast<double>(times_.events);
    timeline_ = exec::pipeline_timeline(pipeline_, times_);
    if (opt_.on_graph) opt_.on_graph({pipeline_.graph, times_.makespan, programs_json()});
    auto result = account_step(accounting_inputs(), std::move(described_));
    result.symmetry = symmetry_;
    if (opt_.op_trace) {
      result.op_trace = trace_ops(timeline_, runner_, topo_, [this](int rank, const parallel::Pass& p) {
        return traced_program(rank, p);
      });
    }
    if (opt_.per_layer) result.layers = simulate_layer_kinds(plan_->blocks, context(0, false), runner_);
    if (const auto unused = prov_.unused_overrides(); !unused.empty()) {
      throw InputError({sc_.source, unused.front(), 0}, "no number of this step is called '" + unused.front() + "'",
                       "the ids of the step's provenance entries (`k3sim run --json`, key provenance)");
    }
    result.provenance = prov_.entries();
    return result;
  }

  // step_time_lower_bound: the pipeline run on passes that only compute, each on one GPU's stream with the
  // routed load balanced, then the shortest optimizer update of any pipeline rank. Every simulated pass lasts
  // at least as long as its busiest GPU's compute stream (execute_pass runs a GPU's compute steps one after
  // another) and as its busiest host (a host issues its thread's steps one after another), that GPU carries
  // at least the balanced routed load (the busiest GPU's share is at least the mean), and an op's time does not
  // fall as its tokens grow; the pipeline's makespan does not fall when a pass gets shorter or a transfer is left
  // out (every start is a max of sums); and the step adds the data-parallel phase's exposed time, which holds the
  // critical rank's optimizer update (dp_phase.hpp).
  core::Seconds lower_bound() {
    prepare_layout();
    // By class key (stage classes are stage indices), each class on the program of the representative the
    // simulation times it on (pass_representatives), looked up once per pass run.
    const auto stages = plan_->stages.size();
    const auto slot = [&](const PassKey& ck) {
      const auto [f_class, b_class, part_index] = ck;
      return (static_cast<std::size_t>(f_class) * (stages + 1) + static_cast<std::size_t>(b_class + 1)) * 4 +
             static_cast<std::size_t>(part_index);
    };
    std::vector<SimTime> compute(stages * (stages + 1) * 4);  // 4 PassParts
    for (const auto& [ck, rep] : pass_representatives()) {
      const auto& [rank, f_stage, b_stage, part] = rep;
      const auto program = program_of(rank, f_stage, b_stage, part);
      compute[slot(ck)] = std::max(exec::busiest_compute_stream(program), exec::busiest_host(program));
    }
    const auto compute_only = [&](int, int f_stage, int b_stage, workload::PassPart part) {
      return compute[slot(class_key(f_stage, b_stage, part))];
    };
    double optimizer_s = std::numeric_limits<double>::infinity();
    for (int rank = 0; rank < plan_->schedule.ranks; ++rank) {
      optimizer_s = std::min(optimizer_s, optimizer_update(sc_, plan_->map.layout(), plan_->blocks, plan_->stages,
                                                           plan_->schedule.stages_held(rank), cost_).seconds);
    }
    return exec::run_pipeline(plan_->schedule, {costs_by_stage(compute_only), {}}, nullptr, false).makespan.seconds() +
           optimizer_s;
  }

 private:
  // Pass costs from `per_pass(rank, stage, second stage or -1, part)` (DualPipe's overlapped F&B as the two
  // stages with part backward), with free transfers between stages.
  template <class PerPass>
  parallel::PassCosts costs_by_stage(const PerPass& per_pass) const {
    parallel::PassCosts c;
    c.forward = [&](int r, int ch) { return per_pass(r, plan_->schedule.stage_of(r, ch), -1, workload::PassPart::forward); };
    c.backward = [&](int r, int ch) { return per_pass(r, plan_->schedule.stage_of(r, ch), -1, workload::PassPart::backward); };
    c.weight = [&](int r, int ch) { return per_pass(r, plan_->schedule.stage_of(r, ch), -1, workload::PassPart::weight); };
    c.forward_backward = [&](int r, int f, int b) {
      return per_pass(r, plan_->schedule.stage_of(r, f), plan_->schedule.stage_of(r, b), workload::PassPart::backward);
    };
    c.p2p = [](int, int) { return SimTime::zero(); };
    return c;
  }

  // The plan of the step: layout checked against cluster, model and batch, schedule, ops and stages.
  void prepare_layout() {
    const auto& gpu = cost_.device();
    StepPlanOptions o;
    o.peak_flops_per_s = std::max({gpu.bf16_flops_per_s, gpu.fp8_flops_per_s, gpu.mxfp8_flops_per_s, gpu.nvfp4_flops_per_s});
    o.gemm_precision = cost_.gemm_precision();
    plan_.emplace(make_step_plan(sc_, spec_, static_cast<std::int64_t>(topo_.gpu_count()), topo_.gpus_per_node(), o));
  }

  std::vector<parallel::GpuIndex> group_of_rank(int rank) const { return plan_->map.simulated_block(rank); }

  // network_scope: check the symmetry shortcut on the first MoE layer's dispatch and run the step's
  // all-to-alls over the whole fabric where it does not hold (or where the scenario asks for it).
  void choose_network_scope() {
    const auto& L = plan_->map.layout();
    symmetry_.scope = sc_.network_scope == NetworkScope::automatic ? "auto"
                      : sc_.network_scope == NetworkScope::block   ? "block"
                                                                   : "fabric";
    if (L.ep <= 1 || moe_layers_.empty() || sc_.network_scope == NetworkScope::block) return;
    if (L.ep_spread) {
      // A spread EP group is not a block of consecutive GPUs, which the copies are shifted by.
      if (sc_.network_scope == NetworkScope::fabric)
        throw InputError({sc_.source, "network_scope", 0}, "fabric needs EP groups of consecutive GPUs",
                         "parallel.ep_spread: false with network_scope: fabric, or network_scope: auto or block");
      return;
    }
    workload::CollectiveCall call;
    call.kind = workload::CollectiveKind::dispatch;
    call.gpus = group_of_rank(0);
    call.matrix = moe_layers_.begin()->second.dispatch;
    call.group_size = plan_->map.ep_shape().size;
    call.group_stride = plan_->map.ep_shape().stride;
    const auto block = static_cast<int>(call.gpus.size());
    const auto job = static_cast<std::int64_t>(topo_.gpu_count());
    const auto check = [&] { return check_symmetry(runner_, topo_, call, block, job); };
    const StepReuse::SymmetryKey key{call.matrix.get(), call.gpus, call.group_size, call.group_stride, block};
    symmetry_ = opt_.reuse != nullptr ? opt_.reuse->find_or_make(opt_.reuse->symmetry, key, check) : check();
    symmetry_.scope = sc_.network_scope == NetworkScope::fabric ? "fabric" : "auto";
    symmetry_.full_fabric = sc_.network_scope == NetworkScope::fabric || symmetry_.difference() > kSymmetryBound;
    if (symmetry_.full_fabric) runner_.use_full_fabric(block, job);
  }

  void prepare_moe(const model::MicroBatch& mb) {
    const auto& L = plan_->map.layout();
    if (L.ep <= 1 || !spec_.has_moe()) {
      // Read all the same: a state written for another model is an error whatever the layout.
      if (sc_.expert_load.kind == workload::ExpertLoadKind::state) (void)workload::read_balancer_state(sc_.expert_load, spec_);
      return;
    }
    workload::MoeSamplingSpec m;
    m.model_name = spec_.name;
    m.experts = spec_.moe.routed_experts;
    m.top_k = spec_.moe.experts_per_token;
    m.width = spec_.moe.expert_io_dim(spec_.hidden);
    m.group = plan_->map.ep_group(group_of_rank(0).front());
    m.gpus_per_node = topo_.gpus_per_node();
    m.node_limit = sc_.communication.node_limit;
    m.copy_per_expert = sc_.communication.alltoall == workload::AllToAllAlgorithm::deepep_ll;
    m.dispatch_bytes_per_element = mb.dtypes.dispatch_bytes;
    m.combine_bytes_per_element = mb.dtypes.combine_bytes;
    m.tokens_per_gpu = mb.tokens() / (L.sequence_parallel ? L.tp : 1);  // sequence parallelism: 1/TP of the tokens
    m.balanced = sc_.expert_load.kind == workload::ExpertLoadKind::uniform;
    m.balancer = sc_.expert_load.balancer;
    m.balancer_steps = sc_.expert_load.steps;
    m.balancer_tokens_per_rank = sc_.expert_load.tokens_per_rank;
    m.bins = sc_.expert_load.bins;
    m.seed = sc_.seed;
    m.state_at = sc_.expert_load.state_at;
    moe_ = sample_expert_load(std::move(m), sc_.expert_load, spec_, opt_.reuse, prov_);
    // Samples are cycled by position inside each stage, so stages of the same composition are identical
    // and their passes are simulated once.
    for (const auto& stage : plan_->stages) {
      std::size_t i = 0;
      for (int b : stage.blocks) {
        if (model::has_expert_dispatch(plan_->blocks[static_cast<std::size_t>(b)])) moe_layers_[b] = moe_.layers[i++ % moe_.layers.size()];
      }
    }
  }

  // True when every GPU of the simulated group does the same work: balanced routed load.
  bool balanced_group() const {
    for (const auto& [block, layer] : moe_layers_) {
      for (double f : layer.routed_factor) {
        if (f != layer.routed_factor.front()) return false;
      }
    }
    return true;
  }

  workload::PassBuildContext context(int rank, bool overlapping) const {
    workload::PassBuildContext ctx;
    ctx.one_thread_for_group = balanced_group() && (!overlapping || !sc_.network->replays_overlapping_collectives);
    ctx.blocks = &plan_->blocks;
    ctx.cost = &cost_;
    ctx.gpus = group_of_rank(rank);
    const auto& L = plan_->map.layout();
    ctx.tp = L.tp;
    ctx.ep = L.ep;
    ctx.etp = L.etp;
    ctx.sequence_parallel = L.sequence_parallel;
    ctx.tp_shape = plan_->map.tp_shape();
    ctx.ep_shape = plan_->map.ep_shape();
    ctx.etp_shape = plan_->map.etp_shape();
    ctx.cp_shape = plan_->map.cp_shape();
    for (std::size_t g = 0; g < ctx.gpus.size(); ++g) ctx.ep_index.push_back(plan_->map.ep_index_in_block(static_cast<int>(g)));
    ctx.cp = plan_->cp_load;
    if (L.fsdp) {
      ctx.fsdp.dense = plan_->map.dp_group(ctx.gpus.front());
      ctx.fsdp.experts = plan_->map.expert_dp_group(ctx.gpus.front());
      ctx.fsdp.gradient_bytes = sc_.precision.gradient_reduce_bytes;
      // The stage has stage_ranks / |group| copies of each group; the step counts one pass's bytes per block.
      const double stage = static_cast<double>(parallel::stage_ranks(L)), blocks = parallel::pass_blocks_per_stage(L);
      ctx.fsdp.dense_copies_per_block = stage / static_cast<double>(ctx.fsdp.dense.size()) / blocks;
      ctx.fsdp.expert_copies_per_block = stage / static_cast<double>(ctx.fsdp.experts.size()) / blocks;
    }
    ctx.recompute = sc_.recompute;
    ctx.host = sc_.host.loaded.get();
    ctx.cuda_graphs = sc_.host.cuda_graphs;
    ctx.dispatch_host_sync = sc_.communication.alltoall != workload::AllToAllAlgorithm::deepep_ll;
    ctx.moe = moe_layers_;
    // One CP rank's tokens (the micro-batch's ops are built on seq / CP).
    const double tokens = static_cast<double>(sc_.batch.micro_batch_seqs) * sc_.batch.seq_len / L.cp;
    ctx.tp_allreduce_bytes = tokens * spec_.hidden * 2.0;
    ctx.etp_bytes = tokens / L.tp * L.etp * spec_.moe.expert_io_dim(spec_.hidden) * 2.0;
    return ctx;
  }

  // Stages holding the same blocks (the same multiset of block kinds: the order of a stage's layers does not
  // change how long its pass takes) run the same passes, so each class of stages is simulated once. The MoE
  // samples follow the position inside the stage.
  int stage_class(int stage) {
    if (stage_class_.empty()) {
      std::map<std::vector<std::string>, int> first;
      for (std::size_t s = 0; s < plan_->stages.size(); ++s) {
        std::vector<std::string> sig;
        for (int b : plan_->stages[s].blocks) sig.push_back(plan_->blocks[static_cast<std::size_t>(b)].kind);
        std::sort(sig.begin(), sig.end());
        stage_class_.push_back(first.emplace(sig, static_cast<int>(s)).first->second);
      }
    }
    return stage_class_[static_cast<std::size_t>(stage)];
  }

  using PassKey = std::tuple<int, int, int>;  // (stage, second stage or -1, PassPart)

  // The pass program a scheduled pass of one stage is timed as: B-input passes as the whole backward (their cost is
  // the backward less the weight part, parallel::pass_duration).
  static workload::PassPart part_costed_as(parallel::PassKind kind) {
    return kind == parallel::PassKind::forward  ? workload::PassPart::forward
           : kind == parallel::PassKind::weight ? workload::PassPart::weight
                                                : workload::PassPart::backward;
  }

  // What the export calls the distinct pass of a class key.
  static std::string program_id(const PassKey& k) {
    const auto& [f_class, b_class, part] = k;
    if (b_class >= 0) return fmt::format("stage class {} forward + stage class {} backward", f_class, b_class);
    const char* parts[] = {"forward", "backward", "backward input", "weight"};
    return fmt::format("stage class {} {}", f_class, parts[part]);
  }

  // Each pass node's distinct pass (before the DP work splits nodes, so that the parts keep it).
  void name_programs() {
    const auto& s = plan_->schedule;
    for (int r = 0; r < s.ranks; ++r) {
      for (const auto& sp : pipeline_.passes[static_cast<std::size_t>(r)]) {
        const auto& p = sp.pass;
        const int f_stage = s.stage_of(r, p.work.chunk);
        const PassKey key = p.kind == parallel::PassKind::forward_backward
                                ? class_key(f_stage, s.stage_of(r, p.backward.chunk), workload::PassPart::backward)
                                : class_key(f_stage, -1, part_costed_as(p.kind));
        pipeline_.graph.nodes[sp.node].program = program_id(key);
      }
    }
  }

  // The kernels of every distinct pass the batch simulated, on the first GPU of its group.
  nlohmann::json programs_json() const {
    nlohmann::json out = nlohmann::json::object();
    for (std::size_t i = 0; i < batch_keys_.size(); ++i) out[program_id(batch_keys_[i])] = exec::program_to_json(batch_->program(i), 0);
    return out;
  }

  PassKey class_key(int f_stage, int b_stage, workload::PassPart part) {
    return {stage_class(f_stage), b_stage < 0 ? -1 : stage_class(b_stage), static_cast<int>(part)};
  }

  workload::PassProgram program_of(int rank, int f_stage, int b_stage, workload::PassPart part) const {
    workload::PassProgram p;
    const auto ctx = context(rank, b_stage >= 0);
    if (b_stage < 0) {
      workload::append_stage_pass(p, ctx, plan_->stages[static_cast<std::size_t>(f_stage)], part);
    } else {
      workload::append_stage_pass(p, ctx, plan_->stages[static_cast<std::size_t>(f_stage)], workload::PassPart::forward);
      workload::append_stage_pass(p, ctx, plan_->stages[static_cast<std::size_t>(b_stage)], workload::PassPart::backward);
    }
    return p;
  }

  // The program of one scheduled pass as the timed run simulated it (the part each pass kind costs as).
  TracedProgram traced_program(int rank, const parallel::Pass& p) const {
    const int f_stage = plan_->schedule.stage_of(rank, p.work.chunk);
    if (p.kind == parallel::PassKind::forward_backward) {
      workload::PassProgram program;
      const auto ctx = context(rank, true);
      workload::append_stage_pass(program, ctx, plan_->stages[static_cast<std::size_t>(f_stage)], workload::PassPart::forward);
      const int forward_threads = static_cast<int>(program.threads.size());
      const int b_stage = plan_->schedule.stage_of(rank, p.backward.chunk);
      workload::append_stage_pass(program, ctx, plan_->stages[static_cast<std::size_t>(b_stage)], workload::PassPart::backward);
      return {std::move(program), forward_threads};
    }
    auto program = program_of(rank, f_stage, -1, part_costed_as(p.kind));
    const int threads = static_cast<int>(program.threads.size());
    return {std::move(program), threads};
  }

  const PassRecord& memo(int rank, int f_stage, int b_stage, workload::PassPart part) {
    const PassKey key{f_stage, b_stage, static_cast<int>(part)};
    if (auto it = passes_.find(key); it != passes_.end()) return it->second;
    const auto ck = class_key(f_stage, b_stage, part);
    auto it = by_class_.find(ck);
    if (it == by_class_.end()) {
      const auto p = program_of(rank, f_stage, b_stage, part);
      exec::LinkClassBytes bytes;
      const auto outcome = runner_.run(p, &bytes);
      events_ += static_cast<double>(outcome.events);
      it = by_class_.emplace(ck, summarize_pass(p, outcome, bytes)).first;
    }
    return passes_.emplace(key, it->second).first->second;
  }

  // Each pass class's representative: the lowest pipeline rank that runs it, with the stages and part it runs
  // there first (parallel::ask_each_pass walks the ranks in order), so the choice does not depend on the order
  // of the calls or on the thread count. The simulation times a class on its representative's program, and the
  // lower bound reads the same program.
  std::map<PassKey, std::tuple<int, int, int, workload::PassPart>> pass_representatives() {
    std::map<PassKey, std::tuple<int, int, int, workload::PassPart>> wanted;  // class -> (rank, f_stage, b_stage, part)
    const auto want = [&](int rank, int f_stage, int b_stage, workload::PassPart part) {
      wanted.try_emplace(class_key(f_stage, b_stage, part), rank, f_stage, b_stage, part);
      return SimTime::zero();
    };
    parallel::ask_each_pass(plan_->schedule, costs_by_stage(want));
    return wanted;
  }

  // The passes of different stage classes are independent simulations, and which of them the schedule runs
  // does not depend on what they cost: one per class, on its representative. They form the batch that
  // passes() hands out; the timed run then finds every pass in the memo.
  void list_passes() {
    std::vector<workload::PassProgram> programs;
    for (const auto& [ck, w] : pass_representatives()) {
      const auto& [rank, f_stage, b_stage, part] = w;
      batch_keys_.push_back(ck);
      programs.push_back(program_of(rank, f_stage, b_stage, part));
    }
    batch_.emplace(runner_, std::move(programs));
  }

  // The batch's passes, those not yet simulated on `threads` workers, into the memo.
  void collect_passes(int threads) {
    const auto runs = batch_->finish(threads);
    for (std::size_t i = 0; i < batch_keys_.size(); ++i) {
      events_ += static_cast<double>(runs[i].outcome.events);
      by_class_.emplace(batch_keys_[i], summarize_pass(batch_->program(i), runs[i].outcome, runs[i].bytes));
    }
  }

  const PassRecord& pass(int rank, int chunk, workload::PassPart part) {
    return memo(rank, plan_->schedule.stage_of(rank, chunk), -1, part);
  }

  const PassRecord& overlapped(int rank, int f_chunk, int b_chunk) {
    return memo(rank, plan_->schedule.stage_of(rank, f_chunk), plan_->schedule.stage_of(rank, b_chunk), workload::PassPart::backward);
  }

  AccountingInputs accounting_inputs() {
    return AccountingInputs{sc_,     spec_, topo_, *plan_,    timeline_, passes_, cost_,   runner_,
                            moe_,    events_, opt_, prov_, pipeline_, times_, dp_};
  }

  const StepSpec& sc_;
  const model::ModelSpec& spec_;
  const topo::Topology& topo_;
  StepOptions opt_;
  core::Provenance prov_;  // constructed before the cost model and the runner, which register in it
  cost::OpCostModel cost_;
  exec::PassRunner runner_;
  std::optional<StepPlan> plan_;
  parallel::PipelineTimeline timeline_;
  workload::MoeSample moe_;
  std::map<int, workload::MoeLayerLoad> moe_layers_;
  SymmetryCheckResult symmetry_;
  PassMemo passes_;
  PassMemo by_class_;
  std::vector<int> stage_class_;
  exec::PipelineGraph pipeline_;
  exec::GraphTimes times_;
  DpWork dp_;
  double events_ = 0;
  StepResult described_;
  std::optional<exec::PassBatch> batch_;
  std::vector<PassKey> batch_keys_;
};

PreparedStep::PreparedStep(const StepSpec& scenario, const model::ModelSpec& spec, const topo::Topology& topology,
                           const cost::CalibrationProfile* profile, const StepOptions& options)
    : run_(std::make_unique<StepRun>(scenario, spec, topology, profile, options)) {
  run_->prepare();
}

PreparedStep::~PreparedStep() = default;
PreparedStep::PreparedStep(PreparedStep&&) noexcept = default;
PreparedStep& PreparedStep::operator=(PreparedStep&&) noexcept = default;

exec::PassBatch* PreparedStep::passes() { return run_->passes(); }

StepResult PreparedStep::finish() {
  K3SIM_ASSERT(run_ != nullptr, "a prepared step finished twice");
  auto run = std::move(run_);
  return run->finish();
}

StepResult simulate_step(const StepSpec& scenario, const model::ModelSpec& spec, const topo::Topology& topology,
                         const cost::CalibrationProfile* profile, const StepOptions& options) {
  PreparedStep step(scenario, spec, topology, profile, options);
  if (auto* passes = step.passes()) {
    core::parallel_for(passes->size(), core::resolve_threads(options.threads), [&](std::size_t i) { passes->try_run(i); });
  }
  return step.finish();
}

core::Seconds step_time_lower_bound(const StepSpec& scenario, const model::ModelSpec& spec,
                                    const topo::Topology& topology, const cost::CalibrationProfile* profile) {
  return StepRun(scenario, spec, topology, profile, {}).lower_bound();
}

}  // namespace k3::train
