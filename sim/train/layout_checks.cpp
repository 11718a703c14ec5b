#include "sim/train/layout_checks.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "model/routing/placement.hpp"
#include "model/totals.hpp"

namespace k3::train {

namespace {
using core::InputError;

void require_divides(const StepSpec& sc, const char* key, int tp, int heads, const char* what) {
  if (heads > 0 && heads % tp != 0) {
    throw InputError({sc.source, key, 0},
                     "TP " + std::to_string(tp) + " does not divide the " + std::to_string(heads) + " " + what,
                     "a TP degree dividing the attention heads");
  }
}
}  // namespace

void check_step_fits_clock(const StepSpec& sc, const model::ModelSpec& spec, std::int64_t gpus, double peak_flops_per_s) {
  const double seq = static_cast<double>(sc.batch.seq_len);
  const double per_sequence = model::summarize(spec, seq).training_flops_per_token * seq;
  const double cluster = static_cast<double>(gpus) * peak_flops_per_s;
  const double step_s = per_sequence * static_cast<double>(sc.batch.global_batch_seqs) / cluster;
  if (!(step_s > kMaxStepSeconds)) return;
  const bool one_sequence = per_sequence / cluster > kMaxStepSeconds;
  throw InputError({sc.source, one_sequence ? "batch.seq_len" : "batch.global_batch_seqs", 0},
                   fmt::format("a step of {} sequences of {} tokens is {:.3g} FLOPs, at least {:.3g} s (~{:.3g} days) "
                               "even at {:.4g} PFLOP/s on each of {} GPUs",
                               sc.batch.global_batch_seqs, sc.batch.seq_len, per_sequence * sc.batch.global_batch_seqs,
                               step_s, step_s / 86'400, peak_flops_per_s / 1e15, gpus),
                   fmt::format("a batch whose step takes under {:.0f} s at peak (the simulated clock spans 106 days)",
                               kMaxStepSeconds));
}

void check_layout(const StepSpec& sc, const model::ModelSpec& spec, const parallel::RankMapping& map) {
  const auto& L = map.layout();
  if (L.tp > 1 && L.ep > 1 && !L.sequence_parallel) {
    throw InputError({sc.source, "parallel.sequence_parallel", 0},
                     "TP with EP needs sequence parallelism (Megatron-Core's MoE token dispatcher routes each TP "
                     "rank's share of the sequence)", "sequence_parallel: true (the default with tp > 1 and ep > 1)");
  }
  if (L.tp > 1 && !L.sequence_parallel && L.etp != L.tp && spec.has_moe()) {
    throw InputError({sc.source, "parallel.etp", 0},
                     "without sequence parallelism the TP ranks hold the same tokens, so the experts split like "
                     "the dense layers", "etp = tp (" + std::to_string(L.tp) + "), or sequence_parallel: true");
  }
  if (L.etp > 1) {
    if (!spec.has_moe()) {
      // The default (ETP = TP without EP) means nothing for a dense model; anything else is a mistake.
      if (L.etp != L.tp) {
        throw InputError({sc.source, "parallel.etp", 0}, "model " + spec.name + " has no routed experts", "etp: 1");
      }
    } else if (spec.moe.expert_ffn % L.etp != 0) {
      throw InputError({sc.source, "parallel.etp", 0},
                       "ETP " + std::to_string(L.etp) + " does not divide the expert width " +
                           std::to_string(spec.moe.expert_ffn),
                       "a divisor of the expert intermediate width");
    }
  }
  if (L.cp > 1) {
    // Causal load balancing splits each sequence into 2 CP chunks.
    if (sc.batch.seq_len % (2 * L.cp) != 0) {
      throw InputError({sc.source, "parallel.cp", 0},
                       "CP " + std::to_string(L.cp) + " needs the sequence (" + std::to_string(sc.batch.seq_len) +
                           " tokens) to split into 2 x CP equal chunks",
                       "a CP degree with seq_len divisible by 2 x CP");
    }
    if (L.cp_comm == parallel::ContextParallelComm::a2a) {
      const int heads = spec.count_layers(model::AttentionKind::GQA) > 0   ? spec.gqa.heads
                        : spec.count_layers(model::AttentionKind::MLA) > 0 ? spec.mla.heads
                                                                           : spec.kda.heads;
      if (heads % (L.tp * L.cp) != 0) {
        throw InputError({sc.source, "parallel.cp", 0},
                         "the all-to-all CP variant scatters the " + std::to_string(heads) +
                             " attention heads over TP x CP = " + std::to_string(L.tp * L.cp) + " ranks",
                         "TP x CP dividing the heads, or cp_comm: p2p");
      }
    }
  }
  if (L.ep > 1) {
    if (!spec.has_moe()) {
      throw InputError({sc.source, "parallel.ep", 0}, "model " + spec.name + " has no routed experts",
                       "ep: 1 for a dense model");
    }
    routing::check_ep_divides_experts(L.ep, spec.moe.routed_experts, {sc.source, "parallel.ep", 0});
    if (sc.communication.node_limit > 0 && sc.communication.node_limit > map.nodes_spanned(map.ep_group(0))) {
      throw InputError({sc.source, "communication.node_limit", 0},
                       "node limit " + std::to_string(sc.communication.node_limit) +
                           " is larger than the nodes an EP group spans",
                       "0 (off) or at most EP / GPUs per node");
    }
  }
  if (L.tp > 1) {
    if (spec.count_layers(model::AttentionKind::MLA) > 0) require_divides(sc, "parallel.tp", L.tp, spec.mla.heads, "MLA heads");
    if (spec.count_layers(model::AttentionKind::KDA) > 0) {
      require_divides(sc, "parallel.tp", L.tp, spec.kda.heads, "KDA heads");
      require_divides(sc, "parallel.tp", L.tp, spec.kda.qk_heads(), "KDA key heads");
    }
    if (spec.count_layers(model::AttentionKind::GQA) > 0) {
      require_divides(sc, "parallel.tp", L.tp, spec.gqa.heads, "attention heads");
    }
  }
}

int microbatches_per_pipeline(const StepSpec& sc, const parallel::ParallelLayout& L) {
  const auto& b = sc.batch;
  if (b.global_batch_seqs % L.dp != 0) {
    // Name the two nearest legal batches: a planner who changed cluster.nodes wants the closest batch to keep.
    const auto below = b.global_batch_seqs / L.dp * L.dp, above = below + L.dp;
    throw InputError({sc.source, "batch.global_batch_seqs", 0},
                     std::to_string(b.global_batch_seqs) + " sequences do not split over DP = " + std::to_string(L.dp),
                     "a multiple of DP = " + std::to_string(L.dp) + ", the nearest being " +
                         (below > 0 ? std::to_string(below) + " and " : std::string()) + std::to_string(above));
  }
  const auto per_pipeline = b.global_batch_seqs / L.dp;
  if (per_pipeline % b.micro_batch_seqs != 0) {
    throw InputError({sc.source, "batch.micro_batch_seqs", 0},
                     "micro-batch of " + std::to_string(b.micro_batch_seqs) + " does not divide the " +
                         std::to_string(per_pipeline) + " sequences per pipeline",
                     "a divisor of " + std::to_string(per_pipeline));
  }
  return static_cast<int>(per_pipeline / b.micro_batch_seqs);
}

parallel::PipelineSchedule make_schedule_for(const StepSpec& sc, const parallel::ParallelLayout& L, int microbatches) {
  const auto steps = sc.batch.gradient_accumulation_steps;
  if (steps > 1 && microbatches % steps != 0) {
    throw InputError({sc.source, "batch.gradient_accumulation_steps", 0},
                     fmt::format("{} schedules do not split the {} micro-batches per pipeline evenly", steps, microbatches),
                     fmt::format("a divisor of {}", microbatches));
  }
  try {
    auto schedule = parallel::make_schedule(*L.schedule, L.pp, L.vpp, static_cast<int>(microbatches / steps));
    if (L.a2a_overlap) parallel::merge_steady_state(schedule);
    parallel::repeat_schedule(schedule, static_cast<int>(steps));
    return schedule;
  } catch (const InputError& e) {
    throw InputError({sc.source, e.where().key, 0}, e.problem(), e.allowed());
  }
}

}  // namespace k3::train
