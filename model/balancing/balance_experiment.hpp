#pragma once
// The balancing experiment behind `k3sim balance`: a synthetic router fed R ranks x T tokens per step, one
// balancer updating the bias after each step, and per step the imbalance read against the noise floor.
#include <optional>
#include <string>
#include <vector>

#include "model/balancing/balancers.hpp"
#include "model/routing/placement.hpp"
#include "model/routing/routing_shape.hpp"
#include "model/routing/synthetic_router.hpp"
#include "core/units.hpp"

namespace k3::balancing {

struct BalanceConfig {
  routing::MoeRoutingShape shape;
  routing::RouterConfig router;
  BalancerSpec balancer;
  int steps = 100;
  int ranks = 8;
  // 8 x 8,192 = 65,536 tokens per step: the per-GPU loads a step simulation reads from the last step are
  // counts over that batch, and their sampling noise (max/mean 1.018 for K3 on EP 64, closed form) must stay
  // small next to the imbalance a step pays for; 1,024 per rank gave 1.052, all of the imbalance then seen.
  int tokens_per_rank = 8192;
  routing::PlacementSpec placement{routing::PlacementKind::contiguous, 64, 8, 0};  // the EP group whose per-GPU load is reported
  double floor_factor = 1.5;     // "balanced" = MaxVio <= floor_factor x noise floor
  bool track_bias_error = true;  // compare every update with the exact-quantile QB bias of the same batch
};

// Throws InputError for steps, ranks or tokens < 1 and the shape / placement / router checks.
void validate(const BalanceConfig& cfg);

struct BalanceStep {
  int step = 0;                  // batch number; batch s is routed with the bias after s updates
  double max_vio = 0;            // global batch, (max - mean) / mean of tokens per expert
  double gpu_max_over_mean = 0;  // tokens per GPU of the EP group, max / mean
  double bias_error_max = 0;     // max_j |b_j(new) - b_j(exact QB on this batch)|, score units
  double bias_error_rms = 0;
};

struct BalanceRun {
  std::string model;
  std::string balancer;  // label: kind, or "qb-hist:<bins>" when bins != 1000
  int bins = 0;          // qb-hist only
  double tokens_per_step = 0;
  double noise_floor = 0;                // expected MaxVio of an equal-expected-load router on this batch size
  std::optional<int> steps_to_floor;     // first batch with MaxVio <= floor_factor x floor
  double steady_maxvio_mean = 0;         // over the second half of the steps
  double steady_maxvio_p99 = 0;
  core::Bytes allreduce_bytes_per_layer = 0;
  std::vector<BalanceStep> curve;
  std::vector<float> final_bias;         // after the last update
  std::vector<double> last_expert_load;  // tokens per expert of the last batch
};

BalanceRun run_balance(const BalanceConfig& cfg);
// Runs independent configurations on up to `threads` threads; results in input order, identical for any
// thread count.
std::vector<BalanceRun> run_balance_all(const std::vector<BalanceConfig>& configs, int threads);

}  // namespace k3::balancing
