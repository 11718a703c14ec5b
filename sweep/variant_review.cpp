#include "sweep/variant_review.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/threads.hpp"
#include "model/balancing/balance_experiment.hpp"
#include "model/routing/model_shape.hpp"
#include "results/balance_output.hpp"
#include "results/kv_output.hpp"
#include "results/traffic_output.hpp"
#include "topologies/analysis.hpp"

namespace k3::sweep {

namespace {

bool has_routed_experts(const ReviewVariant& v) { return v.inputs->model.moe.routed_experts > 0; }

nlohmann::json kv_json(const std::vector<ReviewVariant>& variants, const ReviewOptions& o) {
  const auto& first = *variants.front().inputs;
  std::vector<results::KvModel> models;
  auto add = [&](results::KvModel m) {
    const bool seen = std::any_of(models.begin(), models.end(), [&](const auto& x) { return x.spec.name == m.spec.name; });
    if (!seen) models.push_back(std::move(m));
  };
  for (const auto& v : variants) add(results::kv_model(v.inputs->model, "variant " + v.name));
  for (auto& m : results::kv_models_with_baselines(first.model)) add(std::move(m));
  const auto& gpu = first.topology->gpu_type();
  results::KvBudgetOptions budget;
  budget.gpu = {gpu.name, gpu.hbm_bytes, gpu.source};
  budget.gpus = std::max(1, first.scenario.parallel.ep);  // a serving replica the size of the training EP group
  return results::kv_budget_json(models, o.kv_contexts, budget);
}

routing::UniformTrafficConfig traffic_config(const ReviewVariant& v, const ReviewOptions& o) {
  const auto& s = v.inputs->scenario;
  routing::UniformTrafficConfig cfg;
  cfg.shape = routing::routing_shape_of(v.inputs->model, "model");
  cfg.placement = {routing::PlacementKind::contiguous, s.parallel.ep, v.inputs->topology->gpus_per_node(), 0};
  // DeepEP (normal or low-latency) relays through one GPU per node when it is the normal kernels; the
  // low-latency kernels and NCCL send every copy straight to its GPU.
  cfg.traffic.algorithm = s.communication.alltoall == workload::AllToAllAlgorithm::deepep
                              ? routing::DispatchAlgorithm::hierarchical
                              : routing::DispatchAlgorithm::flat;
  if (s.precision.dispatch == workload::ElementType::bf16) cfg.traffic.dispatch_bytes_per_element = 2;
  if (s.precision.combine == workload::ElementType::fp8) cfg.traffic.combine_bytes_per_element = 1.0 + 4.0 / 128;
  cfg.tokens_per_gpu = o.traffic_tokens_per_gpu;
  cfg.node_limit = s.communication.node_limit;
  cfg.seed = s.seed;
  return cfg;
}

double link(const routing::LinkClassBytes& b, topo::LinkClass c) {
  return c == topo::LinkClass::nvlink ? b.nvlink : b.nic;
}

// The same routing at the full hidden width: what the latent projection saves, per token and per step.
nlohmann::json latent_json(const ReviewVariant& v, const routing::UniformTrafficConfig& cfg,
                           const routing::TrafficResult& latent) {
  auto full_cfg = cfg;
  full_cfg.shape.dispatch_width = v.inputs->model.hidden;
  full_cfg.traffic.width = 0;
  const auto full = routing::uniform_traffic(full_cfg);
  const auto at_latent = latent.bytes_per_token(), at_full = full.bytes_per_token();
  const auto injection = topo::injection_bytes_per_s(*v.inputs->topology);
  nlohmann::json saved_bytes, saved_s, rate;
  for (const auto c : {topo::LinkClass::nvlink, topo::LinkClass::nic}) {
    const std::string name(topo::to_string(c));
    const double per_token = link(at_full, c) - link(at_latent, c);
    const double per_s = injection[static_cast<std::size_t>(c)];
    // Forward and backward move the same bytes (dispatch and combine, then their gradients); spread over
    // every GPU of the job; at the class's line rate per GPU, before any overlap with compute.
    const double bytes_per_gpu = 2 * per_token * cfg.shape.moe_layers * v.tokens_per_step / static_cast<double>(v.gpus);
    saved_bytes[name] = per_token;
    rate[name] = per_s;
    saved_s[name] = per_s > 0 ? bytes_per_gpu / per_s : 0.0;
  }
  return {{"model", v.inputs->model.name},
          {"variant", v.name},
          {"latent_width", cfg.shape.dispatch_width},
          {"full_width", full_cfg.shape.dispatch_width},
          {"moe_layers", cfg.shape.moe_layers},
          {"bytes_per_token", results::link_bytes_json(at_latent)},
          {"full_width_bytes_per_token", results::link_bytes_json(at_full)},
          {"saved_bytes_per_token", saved_bytes},
          {"injection_bytes_per_s_per_gpu", rate},
          {"saved_link_seconds_per_gpu_per_step", saved_s}};
}

nlohmann::json balance_json(const std::vector<ReviewVariant>& variants, const ReviewOptions& o) {
  std::vector<balancing::BalanceConfig> configs;
  for (const auto& v : variants) {
    if (!has_routed_experts(v)) continue;
    for (const char* b : {"qb-hist", "sign"}) {
      balancing::BalanceConfig c;
      c.shape = routing::routing_shape_of(v.inputs->model, "model");
      c.balancer = balancing::parse_balancer(b, "balancer", 1000);
      c.steps = o.balance_steps;
      c.tokens_per_rank = o.balance_tokens_per_rank;
      c.placement = {routing::PlacementKind::contiguous, v.inputs->scenario.parallel.ep,
                     v.inputs->topology->gpus_per_node(), 0};
      // `k3sim balance`'s defaults: half the ranks' topics skewed, expert popularity spread 0.3 logits.
      c.router.rank_topic_skew = 0.5;
      c.router.seed = v.inputs->scenario.seed;
      c.track_bias_error = false;
      configs.push_back(c);
    }
  }
  nlohmann::json j{{"steps", o.balance_steps}, {"tokens_per_rank", o.balance_tokens_per_rank},
                   {"ranks", balancing::BalanceConfig{}.ranks}, {"runs", nlohmann::json::array()}};
  for (const auto& r : balancing::run_balance_all(configs, core::resolve_threads(o.threads)))
    j["runs"].push_back(results::balance_run_to_json(r));
  return j;
}

}  // namespace

nlohmann::json variant_review_json(const std::vector<ReviewVariant>& variants, const ReviewOptions& o) {
  K3SIM_ASSERT(!variants.empty(), "a review needs at least one variant");
  nlohmann::json j;
  j["kv"] = kv_json(variants, o);
  j["traffic"]["models"] = nlohmann::json::array();
  j["latent"] = nlohmann::json::array();
  for (const auto& v : variants) {
    if (!has_routed_experts(v)) continue;
    const auto cfg = traffic_config(v, o);
    const auto r = routing::uniform_traffic(cfg);
    auto t = results::traffic_to_json(cfg, r, j["traffic"]["models"].empty());  // one EP group's matrix: the first's
    t["variant"] = v.name;
    j["traffic"]["models"].push_back(std::move(t));
    if (v.inputs->model.moe.latent_dim > 0) j["latent"].push_back(latent_json(v, cfg, r));
  }
  j["balance"] = balance_json(variants, o);
  return j;
}

}  // namespace k3::sweep
