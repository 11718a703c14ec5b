#pragma once
// BalancerState: tokens per expert of independent layer samples, each routed with the router bias a
// balancer reached after N updates. `k3sim balance --write-state` saves it; a scenario's
// `expert_load: {kind: state, state: FILE}` reads it instead of re-running the balancer, so a sweep or
// a timed step pays for the balancing once. It does not depend on expert placement: the step simulator
// maps it onto the GPUs of whatever EP group the scenario uses.
//
// JSON: {"format": "k3sim-balancer-state", "model", "experts", "top_k", "balancer", "steps", "seed",
//        "tokens_per_step", "source", "expert_tokens": [[experts numbers] per layer sample]}
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "model/balancing/balance_experiment.hpp"
#include "model/routing/expert_load.hpp"
#include "model/routing/placement.hpp"

namespace k3::balancing {

struct BalancerState {
  std::string model;
  int experts = 0;
  int top_k = 0;
  std::string balancer;      // label, e.g. "qb-hist"
  int steps = 0;             // bias updates before the sampled batch
  std::uint64_t seed = 0;    // base router seed; layer sample l used derive(seed, l)
  double tokens_per_step = 0;
  std::string source;        // how it was produced, in words
  std::vector<std::vector<double>> expert_tokens;  // [layer sample][expert]
};

// Layer sample l: the router of `base` with seed derive(base.router.seed, l), `steps_before` bias updates,
// then the tokens per expert of the next batch. Samples run on `threads` threads; the result does not
// depend on the thread count.
BalancerState balancer_state(const BalanceConfig& base, int layers, int steps_before, int threads);

// The first `layers` samples mapped onto the GPUs of `placement` (rows sum to 1). Throws InputError at
// `where` when the state has fewer samples than asked.
routing::ExpertLoad gpu_shares(const BalancerState& state, const routing::ExpertPlacement& placement, int layers,
                      const core::InputLocation& where);

// balancer_state + gpu_shares on base.placement: the load `expert_load: {kind: balancer}` simulates inline.
routing::ExpertLoad expert_load_after_balancing(const BalanceConfig& base, int layers, int steps_before, int threads);

nlohmann::json to_json(const BalancerState& state);
// InputError naming `source` and the key on a malformed document.
BalancerState balancer_state_from_json(const nlohmann::json& doc, const std::string& source);
// Reads and parses a state file; errors name the file.
BalancerState load_balancer_state(const std::string& path);

}  // namespace k3::balancing
