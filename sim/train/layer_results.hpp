#pragma once
// Per-layer results: each kind of decoder layer ("KDA+MoE", "MLA+dense", ...) simulated alone, forward and
// backward, for one micro-batch, on the step's network and simulated group. The stage passes of the
// pipeline are these layers back to back; the per-layer view says where a stage's time and bytes come from.
#include <vector>

#include "model/ops.hpp"
#include "sim/exec/pass_runner.hpp"
#include "sim/train/step_result.hpp"
#include "sim/workload/pass_builder.hpp"

namespace k3::train {

// `ctx` is the step's build context for the group whose layers are simulated; its MoE loads are keyed by
// block, and the first block of each kind that has one (or needs none) stands for its kind.
std::vector<LayerKindResult> simulate_layer_kinds(const std::vector<model::OpBlock>& blocks,
                                                  const workload::PassBuildContext& ctx,
                                                  const exec::PassRunner& runner);

}  // namespace k3::train
