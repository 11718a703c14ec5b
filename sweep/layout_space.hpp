#pragma once
// The layouts `k3sim plan` searches on a fixed GPU count: TP, PP and EP as powers of two the cluster and
// the model allow (TP within one node, PP up to the decoder layers, EP dividing the routed experts), each a
// grid axis of scenario overrides, so a candidate is the base scenario with `--set parallel.tp=...` and
// `k3sim run` reproduces it. `--fix key=value` takes a key out of the search; `--grid` axes add keys or
// replace a default axis.
#include <cstdint>
#include <vector>

#include "model/model_spec.hpp"
#include "sweep/grid.hpp"

namespace k3::sweep {

// parallel.tp, parallel.pp and (for a MoE model) parallel.ep over the powers of two that can be legal for the model on
// `gpus` GPUs of `gpus_per_node` per node (the layout rules decide the rest).
std::vector<GridAxis> default_layout_axes(const model::ModelSpec& spec, std::int64_t gpus, int gpus_per_node);

// The default axes less the keys of `fixes`, with `axes` replacing a default axis of the same key or
// added after them. InputError naming --fix when a key is both fixed and searched (--grid).
std::vector<GridAxis> plan_axes(std::vector<GridAxis> defaults, const std::vector<input::Override>& fixes,
                                const std::vector<GridAxis>& axes);

}  // namespace k3::sweep
