#include "sim/train/step_accounting.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "model/totals.hpp"
#include "sim/parallel/group_placement.hpp"
#include "sim/parallel/schedule_registry.hpp"
#include "sim/net/network_factory.hpp"
#include "sim/train/dp_phase.hpp"
#include "sim/train/step_memory.hpp"
#include "sim/workload/pass_builder.hpp"

namespace k3::train {

using core::SimTime;

PassRecord summarize_pass(const workload::PassProgram& program, const exec::PassOutcome& outcome, const exec::LinkClassBytes& bytes) {
  PassRecord r;
  r.duration = outcome.duration;
  r.link_bytes = bytes;
  if (outcome.threads.empty()) return r;
  const auto crit = static_cast<std::size_t>(outcome.critical_thread);
  const int gpu = program.threads[crit].gpu_slot;
  core::SimTime compute;  // summed in integer picoseconds: a pass with no gap leaves exactly nothing exposed
  for (std::size_t t = 0; t < program.threads.size(); ++t) {
    if (program.threads[t].gpu_slot != gpu) continue;
    for (const auto& [cat, time] : outcome.threads[t].compute_by_category) {
      r.compute_s[cat] += time.seconds();
      compute += time;
    }
    for (const auto& [cat, time] : outcome.threads[t].measured_by_category) r.measured_s[cat] += time.seconds();
  }
  const double exposed = r.duration > compute ? (r.duration - compute).seconds() : 0.0;
  // The critical thread's waits: on collectives by kind, and on its host (the GPU idle until the host had
  // issued the next step); the idle time of the pass is split in their proportions.
  auto waits = outcome.threads[crit].exposed_comm;
  if (outcome.threads[crit].host_wait > SimTime::zero()) waits[std::string(kHostWait)] = outcome.threads[crit].host_wait;
  double wait_total = 0;
  for (const auto& [kind, t] : waits) wait_total += t.seconds();
  if (exposed > 0) {
    if (wait_total <= 0) {
      r.exposed_s["waiting for other GPUs"] += exposed;
    } else {
      for (const auto& [kind, t] : waits) r.exposed_s[kind] += exposed * t.seconds() / wait_total;
    }
  }
  return r;
}

namespace {

// Memory of one GPU of pipeline rank `rank`, at the peak of the schedule.
std::vector<MemoryShare> rank_memory(const AccountingInputs& in, int rank) {
  const auto& L = in.plan.map.layout();
  const std::vector<int> stage_ids = in.plan.schedule.stages_held(rank);
  MemoryInputs m;
  m.params = rank_params(in.plan.blocks, in.plan.stages, stage_ids, L.tp, L.ep, L.etp);
  m.dp = L.dp * L.cp;  // dense weights shard over DP x CP
  m.expert_dp = parallel::expert_dp(L);
  m.zero_stage = L.zero_stage;
  m.gathered_weights_held = L.fsdp && !L.fsdp_regather_in_backward;
  m.optimizer = in.scenario.optimizer.kind;
  m.moment_bytes = in.scenario.optimizer.moment_bytes;
  m.optimizer_offload_fraction = in.scenario.optimizer.offload_fraction;
  m.shards_on_host = L.fsdp_offload;
  double dense = 0, muon = 0;
  std::vector<model::OpBlock> mine;
  const double worst = in.moe.layers.empty() ? 1.0
                           : *std::max_element(in.moe.layers.front().routed_factor.begin(),
                                               in.moe.layers.front().routed_factor.end());
  for (int s : stage_ids) {
    for (int b : in.plan.stages[static_cast<std::size_t>(s)].blocks) {
      model::OpBlock blk = in.plan.blocks[static_cast<std::size_t>(b)];
      for (auto& op : blk.ops) {
        if (!op.routed) {
          dense += op.params;
          if (op.muon_matrix) muon += op.params;
        }
        // What one rank keeps: TP (and sequence parallelism) split the non-routed activations; a rank's
        // routed tokens are 1/TP of the micro-batch's under sequence parallelism, gathered ETP ways.
        const double tokens = L.sequence_parallel ? static_cast<double>(L.etp) / L.tp : 1.0;
        const double share = workload::tp_saved_fraction(op, L.tp, L.sequence_parallel) *
                             workload::etp_saved_fraction(op, L.etp);
        op.saved_bytes *= share;
        op.saved_qkv_bytes *= share;
        op = model::scale_routed(op, worst * tokens);
      }
      mine.push_back(std::move(blk));
    }
  }
  m.muon_fraction = dense > 0 ? muon / dense : 0;
  const auto activations = model::activation_memory(mine, in.scenario.recompute);
  m.activations_per_microbatch = activations.kept;
  m.recompute_working_set = activations.recompute_peak;
  // One schedule's micro-batches at a time (gradient accumulation runs several schedules one after another).
  const int per_schedule = static_cast<int>(in.plan.microbatches / in.scenario.batch.gradient_accumulation_steps);
  m.microbatches_in_flight = L.schedule->microbatches_in_flight(L.pp, L.vpp, rank, per_schedule);
  // The all-to-all overlap's extra warm-up forward (parallel::merge_steady_state) keeps one more chunk pass in flight.
  if (L.a2a_overlap) m.microbatches_in_flight = std::min(m.microbatches_in_flight + 1.0 / L.vpp, static_cast<double>(per_schedule));
  if (!in.moe.layers.empty()) {
    // Dispatch and combine receive buffers of one micro-batch, double-buffered.
    const auto& layer = in.moe.layers.front();
    double worst_recv = 0;
    for (int g = 0; g < layer.dispatch->n; ++g) {
      double recv = 0;
      for (int src = 0; src < layer.dispatch->n; ++src) recv += layer.dispatch->at(src, g) + layer.combine->at(g, src);
      worst_recv = std::max(worst_recv, recv);
    }
    m.alltoall_buffers = 2 * worst_recv;
  }
  return memory_per_gpu(m);
}

void add_into(std::map<std::string, double>& into, const std::map<std::string, double>& from, double sign = 1) {
  for (const auto& [k, v] : from) into[k] += sign * v;
}

struct PassView {
  std::map<std::string, double> compute_s, measured_s, exposed_s;
  exec::LinkClassBytes bytes;
};

PassView view_of(const AccountingInputs& in, int rank, const parallel::Pass& pass) {
  const auto& s = in.plan.schedule;
  auto get = [&](int stage, int second, workload::PassPart part) -> const PassRecord& {
    return in.passes.at({in.plan.simulated.speed_class[static_cast<std::size_t>(rank)], stage, second, static_cast<int>(part)});
  };
  PassView v;
  auto take = [&](const PassRecord& r, double sign = 1) {
    add_into(v.compute_s, r.compute_s, sign);
    add_into(v.measured_s, r.measured_s, sign);
    add_into(v.exposed_s, r.exposed_s, sign);
    v.bytes.add(r.link_bytes, sign);
  };
  const int stage = s.stage_of(rank, pass.work.chunk);
  switch (pass.kind) {
    case parallel::PassKind::forward: take(get(stage, -1, workload::PassPart::forward)); break;
    case parallel::PassKind::backward: take(get(stage, -1, workload::PassPart::backward)); break;
    case parallel::PassKind::weight: take(get(stage, -1, workload::PassPart::weight)); break;
    case parallel::PassKind::backward_input:
      take(get(stage, -1, workload::PassPart::backward));
      take(get(stage, -1, workload::PassPart::weight), -1);
      break;
    case parallel::PassKind::forward_backward:
      take(get(stage, s.stage_of(rank, pass.backward.chunk), workload::PassPart::backward));
      break;
  }
  return v;
}

std::string pass_label(const parallel::Pass& p) {
  if (p.kind == parallel::PassKind::forward_backward) {
    return fmt::format("F{}/B{} mb{}/{}", p.work.chunk, p.backward.chunk, p.work.microbatch, p.backward.microbatch);
  }
  return fmt::format("{}{} mb{}", to_string(p.kind), p.work.chunk, p.work.microbatch);
}

}  // namespace

std::vector<MemoryShare> peak_rank_memory(const AccountingInputs& in) {
  // The layout fits only if every rank does. The critical (busiest) rank is often not the one holding the
  // most (DualPipe's first rank holds the embedding and the heads).
  std::vector<MemoryShare> peak;
  for (int k = 0; k < in.plan.schedule.ranks; ++k) {
    auto shares = rank_memory(in, k);
    if (k == 0 || memory_total(shares) > memory_total(peak)) peak = std::move(shares);
  }
  return peak;
}

StepResult describe_step(const AccountingInputs& in) {
  const auto& sc = in.scenario;
  const auto& L = in.plan.map.layout();
  StepResult r;
  r.scenario = sc.name;
  r.model = in.spec.name;
  r.topology = in.topology.name();
  r.gpus = static_cast<std::int64_t>(in.topology.gpu_count());
  r.seed = sc.seed;
  r.microbatches = in.plan.microbatches;
  r.layout = {L.tp, L.pp, L.vpp, L.ep, L.cp, L.dp, parallel::expert_dp(L), L.zero_stage, L.etp,
              std::string(L.schedule->name) + (L.a2a_overlap ? "+a2a-overlap" : ""), sc.batch.micro_batch_seqs, sc.batch.seq_len,
              model::to_string(sc.recompute), in.plan.map.gpus_per_node(), parallel::group_placement(in.plan.map)};
  r.network_model = std::string(sc.network->name);
  r.scenario_yaml = sc.yaml_text;
  r.version = in.options.version;
  r.simulated_events = in.events;
  r.memory = peak_rank_memory(in);
  r.hbm_bytes = in.topology.gpu_type().hbm_bytes;
  r.fits_in_memory = memory_total(r.memory) <= r.hbm_bytes;
  return r;
}

StepResult account_step(const AccountingInputs& in, StepResult described) {
  const auto& sc = in.scenario;
  const auto& L = in.plan.map.layout();
  const auto& t = in.timeline;
  StepResult r = std::move(described);
  r.simulated_events = in.events;  // the description was taken before the passes ran

  // The critical rank: the one whose step ends last (its optimizer update), the busiest of those.
  const auto rank_end = [&](int k) { return in.times.end[in.dp.ranks[static_cast<std::size_t>(k)].tail.back().first]; };
  int crit = 0;
  for (int k = 1; k < in.plan.schedule.ranks; ++k) {
    const auto ki = static_cast<std::size_t>(k), ci = static_cast<std::size_t>(crit);
    if (rank_end(k) > rank_end(crit) || (rank_end(k) == rank_end(crit) && t.busy[ki] > t.busy[ci])) crit = k;
  }
  const auto ci = static_cast<std::size_t>(crit);
  std::map<std::string, double> compute, exposed;
  for (const auto& pt : t.per_rank[ci]) {
    const auto v = view_of(in, crit, pt.pass);
    add_into(compute, v.compute_s);
    add_into(r.measured_compute_s, v.measured_s);
    add_into(exposed, v.exposed_s);
  }
  const auto dp = dp_phase_of(in.dp, in.pipeline, in.times, crit);

  K3SIM_ASSERT(rank_end(crit) == in.times.makespan, "a step graph node ended after the last optimizer update");
  r.step_time_s = in.times.makespan.seconds();
  for (const auto& [cat, s] : compute) r.breakdown.push_back({"compute: " + cat, "compute", s});
  for (const auto& [kind, s] : exposed) {
    r.breakdown.push_back({"exposed: " + kind, kind == kHostWait ? "host" : "communication", s});
  }
  if (t.sending[ci] > SimTime::zero()) {
    r.breakdown.push_back({"exposed: pipeline send/receive", "communication", t.sending[ci].seconds()});
  }
  if (dp.param_gather_wait > SimTime::zero()) {
    r.breakdown.push_back({"exposed: DP parameter all-gather", "communication", dp.param_gather_wait.seconds()});
  }
  // The passes ran longer than their own runs made them while NCCL's kernels (DP rings, sends) held SMs beside them.
  SimTime slowed;
  const auto& tail = in.dp.ranks[ci].tail;
  for (exec::GraphNodeId n = 0; n < in.pipeline.graph.nodes.size(); ++n) {
    const auto& node = in.pipeline.graph.nodes[n];
    if (node.rank != crit || node.kind != exec::GraphNodeKind::compute) continue;
    if (std::any_of(tail.begin(), tail.end(), [n](const auto& entry) { return entry.first == n; })) continue;
    slowed += (in.times.end[n] - in.times.start[n]) - node.duration;
  }
  if (slowed > SimTime::zero()) {
    r.breakdown.push_back({"exposed: NCCL kernels' SMs", "communication", slowed.seconds()});
  }
  // Inside the span of the rank's passes, what they, their sends and the parameter waits did not fill.
  const SimTime passes_end = in.times.end[in.pipeline.last_compute[ci]];
  r.breakdown.push_back({"pipeline bubble", "bubble",
                         (passes_end - t.busy[ci] - t.sending[ci] - dp.param_gather_wait - slowed).seconds()});
  for (const auto& share : dp.breakdown) r.breakdown.push_back(share);

  const auto totals = model::summarize(in.spec, static_cast<double>(sc.batch.seq_len));
  r.tokens_per_step = static_cast<double>(sc.batch.global_batch_seqs) * static_cast<double>(sc.batch.seq_len);
  r.tokens_per_s = r.tokens_per_step / r.step_time_s;
  r.model_flops_per_step = totals.training_flops_per_token * r.tokens_per_step;
  r.tflops_per_gpu = r.model_flops_per_step / r.step_time_s / static_cast<double>(r.gpus) / 1e12;
  const auto& gpu = in.topology.gpu_type();
  r.peak_flops_per_s_bf16 = gpu.bf16_flops_per_s;
  r.peak_flops_per_s_fp8 = gpu.fp8_flops_per_s;
  r.mfu = r.tflops_per_gpu * 1e12 / gpu.bf16_flops_per_s;
  r.mfu_fp8 = gpu.fp8_flops_per_s > 0 ? r.tflops_per_gpu * 1e12 / gpu.fp8_flops_per_s : 0;
  r.gpu_hours_per_trillion_tokens = static_cast<double>(r.gpus) * r.step_time_s / 3600.0 * 1e12 / r.tokens_per_step;
  if (sc.price_per_gpu_hour) r.cost_per_trillion_tokens = r.gpu_hours_per_trillion_tokens * *sc.price_per_gpu_hour;

  // Link classes: every pass of every rank moves its group's bytes in each of the stage's groups.
  const double groups_per_stage = parallel::pass_blocks_per_stage(L);
  exec::LinkClassBytes step_bytes;
  for (int k = 0; k < in.plan.schedule.ranks; ++k) {
    for (const auto& pt : t.per_rank[static_cast<std::size_t>(k)]) {
      const auto v = view_of(in, k, pt.pass);
      step_bytes.add(v.bytes, groups_per_stage);
    }
  }
  step_bytes.add(in.dp.link_bytes);
  for (const auto& [node, copies] : in.dp.copies) step_bytes.add(in.times.bytes[node], copies);
  // Activation sends: the graph runs one pipeline's (its TP ranks' slices and gathers); every pipeline of the job
  // sends the same.
  const double pipelines = static_cast<double>(in.plan.map.gpus()) / (static_cast<double>(in.plan.schedule.ranks) * L.tp);
  for (exec::GraphNodeId n = 0; n < in.pipeline.graph.nodes.size(); ++n) {
    if (in.pipeline.graph.nodes[n].kind != exec::GraphNodeKind::send) continue;
    step_bytes.add(in.times.bytes[n], pipelines);
  }
  std::array<double, topo::kLinkClassCount> capacity{};
  for (const auto& l : in.topology.links()) capacity[static_cast<std::size_t>(l.link_class)] += l.capacity_bytes_per_s;
  for (std::size_t c = 0; c < step_bytes.bytes.size(); ++c) {
    if (capacity[c] <= 0) continue;
    // Self-check: the links of a class cannot have carried more than their capacity over the step. More means a
    // part of the step was timed as if its traffic had the links to itself, or its bytes were miscounted.
    if (step_bytes.bytes[c] > capacity[c] * r.step_time_s * (1 + 1e-9)) {
      throw core::InternalError(fmt::format(
          "the {} links carried {:.4g} B in a {:.4g} s step, {:.1f}% of their {:.4g} B/s together: more than they can",
          topo::to_string(static_cast<topo::LinkClass>(c)), step_bytes.bytes[c], r.step_time_s,
          100 * step_bytes.bytes[c] / (capacity[c] * r.step_time_s), capacity[c]));
    }
    r.links.push_back({std::string(topo::to_string(static_cast<topo::LinkClass>(c))), step_bytes.bytes[c],
                       step_bytes.bytes[c] / (capacity[c] * r.step_time_s)});
  }
  // The GPUs' host ports, both directions of every GPU's (offloaded FSDP shards); only where something crossed them.
  if (step_bytes.host > 0) {
    const double host_capacity = net::host_ports_bytes_per_s(in.topology);
    if (step_bytes.host > host_capacity * r.step_time_s * (1 + 1e-9))
      throw core::InternalError(fmt::format("the host ports carried {:.4g} B in a {:.4g} s step: more than their {:.4g} B/s",
                                            step_bytes.host, r.step_time_s, host_capacity));
    r.links.push_back({"host", step_bytes.host, step_bytes.host / (host_capacity * r.step_time_s)});
  }

  if (in.options.trace) {
    const int ranks = std::min(in.plan.schedule.ranks, in.options.max_trace_ranks);
    for (int k = 0; k < ranks; ++k) {
      for (const auto& pt : t.per_rank[static_cast<std::size_t>(k)]) {
        r.trace.push_back({k, "compute", pass_label(pt.pass), to_string(pt.pass.kind), pt.start.seconds(),
                           pt.end.seconds()});
      }
    }
    for (int k = 0; k < ranks; ++k) {
      for (auto& span : dp_phase_of(in.dp, in.pipeline, in.times, k).trace) r.trace.push_back(std::move(span));
    }
  }

  r.assumptions = core::describe(in.prov.entries());
  for (auto& n : in.cost.notes()) r.assumptions.push_back(std::move(n));
  r.assumptions.push_back("one EP (or TP) group is simulated per pipeline stage: the stage's other groups run the "
                          "same sampled routing and are identical by symmetry");
  if (!in.moe.layers.empty()) {
    r.expert_load_max_over_mean = in.moe.max_over_mean;
    r.expert_load_noise_floor_max_over_mean = 1 + in.moe.gpu_noise_floor;
    r.expert_load_sample_tokens_per_step = in.moe.sample_tokens_per_step;
    const auto [lo, hi] = std::minmax_element(in.moe.max_over_mean.begin(), in.moe.max_over_mean.end());
    r.assumptions.push_back(fmt::format(
        "expert load: {}; {} routing samples cycled over the MoE layers, {:.2f} distinct GPUs and {:.2f} distinct "
        "nodes per token; routed load per GPU max/mean {:.3f}..{:.3f}{}",
        in.moe.load_source, in.moe.layers.size(), in.moe.distinct_gpus_per_token, in.moe.distinct_nodes_per_token,
        *lo, *hi,
        in.moe.sample_tokens_per_step > 0
            ? fmt::format(" against a sampling-noise floor of {:.3f} for the {:.0f} tokens per step it was counted "
                          "from (closed form: the max/mean a perfectly balanced router shows on that batch)",
                          1 + in.moe.gpu_noise_floor, in.moe.sample_tokens_per_step)
            : std::string(" (exact)")));
  }
  for (const auto& a : in.dp.assumptions) r.assumptions.push_back(a);
  r.assumptions.push_back(sc.host.loaded ? cost::describe(*sc.host.loaded, sc.host.cuda_graphs)
                                         : std::string("an ideal host (host.profile: none): the CPU never holds a GPU up"));
  r.assumptions.push_back(fmt::format("GPU {}: {}", gpu.name, gpu.source));
  return r;
}

}  // namespace k3::train
