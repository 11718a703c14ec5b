#pragma once
// The layouts `k3sim plan` searches on a fixed GPU count: TP, PP and EP as powers of two the cluster and
// the model allow (TP within one node, PP up to the decoder layers, EP dividing the routed experts), every
// registered pipeline schedule with 1 or 2 virtual stages, ZeRO 1 and 2, micro-batches of 1, 2 and 4
// sequences, no, selective and full recomputation, and (MoE) the flat and DeepEP all-to-all; each a grid
// axis of scenario overrides, so a candidate is the base scenario with `--set parallel.tp=...` and
// `k3sim run` reproduces it. `--fix key=value` takes a key out of the search; `--grid` axes add keys
// (ETP, CP, FSDP, ...) or replace a default axis.
#include <cstdint>
#include <vector>

#include "model/model_spec.hpp"
#include "sweep/grid.hpp"

namespace k3::sweep {

// The axes above for the model on `gpus` GPUs of `gpus_per_node` per node (the layout rules decide which
// combinations are legal).
std::vector<GridAxis> default_layout_axes(const model::ModelSpec& spec, std::int64_t gpus, int gpus_per_node);

// The default axes less the keys of `fixes`, with `axes` replacing a default axis of the same key or
// added after them. InputError naming --fix when a key is both fixed and searched (--grid).
std::vector<GridAxis> plan_axes(std::vector<GridAxis> defaults, const std::vector<input::Override>& fixes,
                                const std::vector<GridAxis>& axes);

}  // namespace k3::sweep
