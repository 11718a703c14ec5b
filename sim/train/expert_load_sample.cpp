#include "sim/train/expert_load_sample.hpp"

#include <xxhash.h>

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "model/routing/synthetic_router.hpp"

namespace k3::train {

namespace {

// Bytes of each value in turn, for one XXH3-128 digest: fixed-size values as they are, strings and vectors after
// their length (so that "ab","c" and "a","bc" differ).
class KeyBytes {
 public:
  template <typename T>
    requires std::is_arithmetic_v<T>
  void add(T v) { bytes_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void add(const std::string& s) {
    add(s.size());
    bytes_ += s;
  }
  template <typename T>
  void add(const std::vector<T>& v) {
    add(v.size());
    for (const auto& x : v) add(x);
  }
  std::pair<std::uint64_t, std::uint64_t> digest() const {
    const XXH128_hash_t h = XXH3_128bits(bytes_.data(), bytes_.size());
    return {h.high64, h.low64};
  }

 private:
  std::string bytes_;
};

// Everything sample_moe reads: runs whose keys are equal draw the same sample. Every field of the spec is bound
// below by name, so a field added to MoeSamplingSpec does not compile here until it is hashed or its omission is
// said; the balancer state enters by its file (one search or band reads one file), not by its address.
StepReuse::MoeSampleKey moe_sample_key(const workload::MoeSamplingSpec& m, const workload::ExpertLoadSpec& load) {
  const auto& [model_name, experts, top_k, width, group, gpus_per_node, node_limit, copy_per_expert, dispatch_bytes,
               combine_bytes, gradient_bytes, tokens_per_gpu, balanced, balancer, balancer_steps,
               balancer_tokens_per_rank, bins, state, state_at, sample_tokens, distinct_samples, seed] = m;
  static_cast<void>(state);     // its content is the file named in `load`, hashed below
  static_cast<void>(state_at);  // where the file was named, for error messages only
  KeyBytes k;
  k.add(model_name);
  k.add(experts), k.add(top_k), k.add(width), k.add(group), k.add(gpus_per_node), k.add(node_limit);
  k.add(copy_per_expert), k.add(dispatch_bytes), k.add(combine_bytes), k.add(gradient_bytes), k.add(tokens_per_gpu);
  k.add(balanced), k.add(balancer), k.add(balancer_steps), k.add(balancer_tokens_per_rank), k.add(bins);
  k.add(sample_tokens), k.add(distinct_samples), k.add(seed);
  k.add(static_cast<int>(load.kind));
  k.add(load.kind == workload::ExpertLoadKind::state ? load.state : std::string());
  return k.digest();
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

StepExpertLoad sample_step_expert_load(const StepSpec& sc, const model::ModelSpec& spec, const StepPlan& plan,
                                       int gpus_per_node, StepReuse* reuse, core::Provenance& prov) {
  const auto& L = plan.map.layout();
  if (L.ep <= 1 || !spec.has_moe()) {
    if (sc.expert_load.kind == workload::ExpertLoadKind::state) (void)workload::read_balancer_state(sc.expert_load, spec);
    return {};
  }
  const auto& mb = plan.microbatch;
  workload::MoeSamplingSpec m;
  m.model_name = spec.name;
  m.experts = spec.moe.routed_experts;
  m.top_k = spec.moe.experts_per_token;
  m.width = spec.moe.expert_io_dim(spec.hidden);
  m.group = plan.map.ep_group(plan.map.simulated_block(0).front());
  m.gpus_per_node = gpus_per_node;
  m.node_limit = sc.communication.node_limit;
  m.copy_per_expert = sc.communication.alltoall == workload::AllToAllAlgorithm::deepep_ll;
  m.dispatch_bytes_per_element = mb.dtypes.dispatch_bytes;
  m.combine_bytes_per_element = mb.dtypes.combine_bytes;
  m.tokens_per_gpu = mb.tokens() / (L.sequence_parallel ? L.tp : 1);  // sequence parallelism: 1/TP of the tokens
  m.balanced = sc.expert_load.kind == workload::ExpertLoadKind::uniform;
  m.balancer = sc.expert_load.balancer;
  m.balancer_steps = sc.expert_load.steps;
  m.balancer_tokens_per_rank = sc.expert_load.tokens_per_rank;
  m.bins = sc.expert_load.bins;
  m.seed = sc.seed;
  m.state_at = sc.expert_load.state_at;
  StepExpertLoad out;
  out.sample = sample_expert_load(std::move(m), sc.expert_load, spec, reuse, prov);
  for (const auto& stage : plan.stages) {
    std::size_t i = 0;
    for (int b : stage.blocks) {
      if (!model::has_expert_dispatch(plan.blocks[static_cast<std::size_t>(b)])) continue;
      out.by_block[b] = out.sample.layers[i++ % out.sample.layers.size()];
    }
  }
  return out;
}

}  // namespace k3::train
