#pragma once
// The scenario's `reliability:` block: what interrupts the run and what a recovery costs.
#include <optional>
#include <string>

#include "core/error.hpp"
#include "sim/reliability/failure_rates.hpp"

namespace k3::reliability {

// Meta's storage for Llama 3 (Tectonic, 7,500 SSD servers) sustains 2 TB/s (peaks 7 TB/s): "The Llama 3 Herd of
// Models", arXiv:2407.21783, sec. 3.3.1. The default for both directions; a scenario states its own.
inline constexpr double kLlama3StorageBytesPerS = 2e12;

struct RecoverySpec {
  FailureRates rates = llama3_405b_rates();
  std::string rates_source = "llama3-405b";     // or "scenario" where any rate was given
  double restart_s = 0;                          // required: no published figure to default to
  double storage_write_bytes_per_s = kLlama3StorageBytesPerS;
  double storage_read_bytes_per_s = kLlama3StorageBytesPerS;
  std::optional<double> checkpoint_interval_s;   // none: the simulated optimum
  std::optional<int> spare_nodes;                // none: a replacement is always at hand
  double repair_hours = 0;
  double stragglers_per_gpu_day = 0;
  double straggler_slowdown = 1;
  // stragglers.gpu_speed: the slow GPU's speed; its slowdown of the step is then simulated (input::derive_straggler_slowdown).
  std::optional<double> straggler_gpu_speed;
  double straggler_found_s = 0;
  // Where the block and its interval were given, for refusals that need the run's length to decide.
  core::InputLocation block_where{"reliability", "reliability", 0};
  core::InputLocation interval_where{"reliability", "reliability.checkpoint_interval_s", 0};
};

}  // namespace k3::reliability
