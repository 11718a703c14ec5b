#include "sim/train/layout_checks.hpp"

#include "core/error.hpp"
#include "model/routing/placement.hpp"

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

void check_layout(const StepSpec& sc, const model::ModelSpec& spec, const parallel::RankMapping& map) {
  const auto& L = map.layout();
  if (L.tp > 1 && L.ep > 1) {
    throw InputError({sc.source, "parallel.ep", 0}, "tensor and expert parallelism together are not modelled",
                     "tp: 1 with ep > 1, or ep: 1 with tp > 1");
  }
  if (L.cp > 1) {
    throw InputError({sc.source, "parallel.cp", 0}, "context parallelism is not modelled yet", "cp: 1");
  }
  if (L.ep > 1) {
    if (!spec.has_moe()) {
      throw InputError({sc.source, "parallel.ep", 0}, "model " + spec.name + " has no routed experts",
                       "ep: 1 for a dense model");
    }
    routing::check_ep_divides_experts(L.ep, spec.moe.routed_experts, {sc.source, "parallel.ep", 0});
    if (sc.communication.node_limit > 0 && sc.communication.node_limit > (L.ep + map.gpus_per_node() - 1) / map.gpus_per_node()) {
      throw InputError({sc.source, "communication.node_limit", 0},
                       "node limit " + std::to_string(sc.communication.node_limit) +
                           " is larger than the nodes an EP group spans",
                       "0 (off) or at most EP / GPUs per node");
    }
  }
  if (L.tp > 1) {
    if (spec.count_layers(model::AttentionKind::MLA) > 0) require_divides(sc, "parallel.tp", L.tp, spec.mla.heads, "MLA heads");
    if (spec.count_layers(model::AttentionKind::KDA) > 0) require_divides(sc, "parallel.tp", L.tp, spec.kda.heads, "KDA heads");
    if (spec.count_layers(model::AttentionKind::GQA) > 0) {
      require_divides(sc, "parallel.tp", L.tp, spec.gqa.heads, "attention heads");
    }
  }
}

int microbatches_per_pipeline(const StepSpec& sc, const parallel::ParallelLayout& L) {
  const auto& b = sc.batch;
  if (b.global_batch_seqs % L.dp != 0) {
    throw InputError({sc.source, "batch.global_batch_seqs", 0},
                     std::to_string(b.global_batch_seqs) + " sequences do not split over DP = " + std::to_string(L.dp),
                     "a multiple of DP = " + std::to_string(L.dp));
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
  try {
    return parallel::make_schedule(*L.schedule, L.pp, L.vpp, microbatches);
  } catch (const InputError& e) {
    throw InputError({sc.source, e.where().key, 0}, e.problem(), e.allowed());
  }
}

}  // namespace k3::train
