#include "sim/train/expert_load_sample.hpp"

#include <fmt/format.h>

#include <optional>
#include <string>

#include "model/routing/synthetic_router.hpp"

namespace k3::train {

namespace {

// Everything sample_moe reads, as text: runs whose keys are equal draw the same sample. The balancer state
// enters by its file (one search or band reads one file), and the group by its GPUs.
std::string moe_sample_key(const workload::MoeSamplingSpec& m, const workload::ExpertLoadSpec& load) {
  std::string key = fmt::format(
      "{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|", m.model_name, m.experts, m.top_k, m.width,
      m.gpus_per_node, m.node_limit, m.copy_per_expert, m.dispatch_bytes_per_element, m.combine_bytes_per_element,
      m.gradient_bytes_per_element, m.tokens_per_gpu, m.balanced, m.balancer, m.balancer_steps,
      m.balancer_tokens_per_rank, m.bins, m.sample_tokens, m.distinct_samples, m.seed, static_cast<int>(load.kind),
      load.kind == workload::ExpertLoadKind::state ? load.state : std::string());
  for (const auto g : m.group) key += fmt::format("{},", g);
  return key;
}

// The synthetic router's settings and the batch the expert load was counted from: they shape the traffic
// matrices and the per-GPU load. Listed exactly (no range): the band's runs share one routing sample.
void register_routing_figures(const workload::MoeSamplingSpec& m, const workload::MoeSample& sample,
                              core::Provenance& prov) {
  using core::SourceKind;
  const routing::RouterConfig router;
  const std::string src = "synthetic router (model/routing/synthetic_router.hpp), assumption: ";
  prov.add_exact("router.popularity_sigma", m.balanced ? 0.0 : router.popularity_sigma, "logit", SourceKind::assumption,
                 src + "std of the per-expert logit offsets (initial imbalance; 0 for a uniform load)");
  prov.add_exact("router.topic_spread", m.balanced ? 0.0 : router.topic_spread, "logit", SourceKind::assumption,
                 src + "std of the topic centroids (token correlation; 0 for a uniform load)");
  prov.add_exact("router.token_noise", router.token_noise, "logit", SourceKind::assumption,
                 src + "std of a token's features around its topic centroid");
  prov.add_exact("router.routing_samples", m.distinct_samples, "count", SourceKind::assumption,
                 "distinct routing samples cycled over the MoE layers (workload::MoeSamplingSpec)");
  if (sample.sample_tokens_per_step > 0) {
    prov.add_exact("balancer.sample_tokens_per_step", sample.sample_tokens_per_step, "tokens", SourceKind::assumption,
                   "tokens per step the balancer state's per-expert loads were counted from (" + sample.load_source + ")");
  }
}

}  // namespace

workload::MoeSample sample_expert_load(workload::MoeSamplingSpec m, const workload::ExpertLoadSpec& load,
                                       const model::ModelSpec& spec, StepReuse* reuse, core::Provenance& prov) {
  std::optional<balancing::BalancerState> state;  // read before sampling; sample_moe reads it through m.state
  const auto read_state_and_sample = [&] {
    if (load.kind == workload::ExpertLoadKind::state) {
      state = workload::read_balancer_state(load, spec);
      m.state = &*state;
    }
    if (reuse == nullptr) return workload::sample_moe(m);
    const auto routed = reuse->find_or_make(reuse->routed, workload::routed_traffic_key(m), [&] {
      return std::make_shared<const workload::RoutedTraffic>(workload::route_samples(m));
    });
    return workload::sample_moe(m, routed.get());
  };
  workload::MoeSample sample;
  if (reuse != nullptr) {
    // Copies share the traffic matrices, whose addresses key the collective memo.
    sample = *reuse->find_or_make(reuse->moe, moe_sample_key(m, load), [&] {
      return std::make_shared<const workload::MoeSample>(read_state_and_sample());
    });
  } else {
    sample = read_state_and_sample();
  }
  register_routing_figures(m, sample, prov);
  return sample;
}

}  // namespace k3::train
