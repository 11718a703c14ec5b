#pragma once
// Up-front refusal of clusters too large to simulate: before the topology is built or a pass is run, the
// memory and run time of `k3sim run` are estimated from the GPU count and compared with stated limits.
#include <cstdint>

#include "sim/input/scenario.hpp"

namespace k3::input {

struct SizeEstimate {
  std::int64_t gpus = 0;
  double memory_bytes = 0;  // peak resident memory of the simulator process
  double seconds = 0;       // wall-clock run time on one core
};

struct SizeLimits {
  double max_memory_bytes = 16.0 * (1ull << 30);  // 16 GiB: a laptop or a CI runner
  double max_seconds = 600;                       // ten minutes
};

// Fitted to measured runs of scenarios/k3-h200-2048.yaml (network analytical or flow, 2,048 to 98,304 GPUs on
// an H200 fabric of 128-port switches; numbers in size_limits.cpp). Both grow linearly with the GPU count; the
// per-stage pass simulation, a fixed cost for a given layout, is in the constant.
SizeEstimate estimate_step_size(std::int64_t gpus, const net::NetworkModelEntry& network);

// Throws core::InputError naming cluster.nodes (or cluster.topology when the topology sets the size),
// with the estimate, the limit and the largest GPU count within it.
void check_size_limits(const Scenario& scenario, std::int64_t gpus, const SizeLimits& limits = {});

}  // namespace k3::input
