#pragma once
// One load-balancing run as JSON: an entry of `k3sim balance --json`'s "runs" and of the `compare` review's
// balancing section, from one writer. MaxVio and max/mean are ratios; bytes in B.
#include <nlohmann/json.hpp>

#include "model/balancing/balance_experiment.hpp"

namespace k3::results {

// {"model", "balancer", "bins" (null unless qb-hist), "tokens_per_step", "noise_floor", "noise_floor_method",
//  "steps_to_floor" (null when never reached), "steady_maxvio_mean", "steady_maxvio_p99",
//  "allreduce_bytes_per_layer", "curve": [{"step", "max_vio", "gpu_max_over_mean", "bias_error_max",
//  "bias_error_rms"}]}
nlohmann::json balance_run_to_json(const balancing::BalanceRun& r);

}  // namespace k3::results
