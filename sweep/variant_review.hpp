#pragma once
// What a review of compared variants reads beside their steps (`k3sim compare`): the KV cache and state per
// sequence against context for every variant and the baselines, the expert all-to-all of one EP group per
// variant (with the GPU x GPU dispatch matrix of the first), what the latent expert width saves in bytes
// and in link time, and the router-bias balancers (Quantile Balancing, sign-SGD) on each variant's routing
// shape. Computed by the libraries `k3sim kv`, `traffic` and `balance` use, written by their JSON writers
// (results/), so the review holds the same numbers those commands print.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "sim/input/scenario_inputs.hpp"

namespace k3::sweep {

struct ReviewVariant {
  std::string name;
  const input::ScenarioInputs* inputs = nullptr;  // never null
  double tokens_per_step = 0;                     // of the simulated step
  std::int64_t gpus = 0;
};

struct ReviewOptions {
  std::vector<double> kv_contexts{4096, 32768, 131072, 1048576};  // 4K .. 1M tokens
  // A short balancing run keeps the review fast (QB reaches 1.5x its noise floor in about 6 steps; sign-SGD's
  // fixed 1e-3 steps need hundreds, which `k3sim balance` shows). The per-GPU loads the step used come from the
  // scenario's own balancer state, not from these runs.
  int balance_steps = 20;
  int balance_tokens_per_rank = 1024;
  int traffic_tokens_per_gpu = 256;
  int threads = 0;  // 0 = all hardware threads; the result does not depend on it
};

// {"kv": kv_budget_json, "traffic": {"models": [...]}, "latent": [...], "balance": {..., "runs": [...]}}.
// Variants without routed experts have no traffic, latent or balance entries.
nlohmann::json variant_review_json(const std::vector<ReviewVariant>& variants, const ReviewOptions& options = {});

}  // namespace k3::sweep
