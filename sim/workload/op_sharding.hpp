#pragma once
// One operator as one GPU of a parallel layout runs it: its tensor-parallel shard, the saved activations a TP rank
// keeps, context parallelism's causal pairs, and the module a host profile annotates it in. The pass builder
// (pass_builder.hpp) and the memory accounting read these.
#include <vector>

#include "model/ops.hpp"
#include "sim/cost/host_profile.hpp"

namespace k3::workload {

// Context parallelism on ops built for one CP rank's seq / CP tokens: with Megatron's causal load
// balancing (each rank holds chunks i and 2 CP - 1 - i of the sequence) every rank's queries see 1/CP of
// the causal pairs of the whole sequence, CP times the pairs of a seq / CP self-attention.
void apply_context_parallel(std::vector<model::OpBlock>& blocks, int cp);

// The shared experts' ops (named "shared_*"), which run beside the routed experts' all-to-alls.
bool is_shared_expert(const model::Op& op);

// The module of a layer an op is issued in, as host profiles annotate them: the routed and shared experts,
// the router and the dense MLP are `mlp`; the rest (attention, norms, embedding, head) `attention`;
// the all-to-alls `dispatch` and `combine`.
cost::HostModule host_module(const model::Op& op);

// A non-routed op as one GPU runs it under tensor parallelism: GEMMs, attention and scans split TP ways;
// norms and elementwise ops are replicated, or split TP ways by the sequence under sequence parallelism.
model::Op shard_for_tp(const model::Op& op, int tp, bool sequence_parallel = false);

// Whether TP splits an op's (non-routed) parameters: GEMMs, the router and the embedding; norms replicate.
bool tp_splits_params(const model::Op& op);

// The row-parallel projections that close a TP region (their partial outputs are all-reduced, or
// reduce-scattered under sequence parallelism).
bool ends_tp_region(const model::Op& op);

// The share of a non-routed op's saved activations one TP rank keeps (Korthikanti et al., arXiv:2205.05198
// section 4.2): what a column-parallel projection, a norm or the residual saves is the whole tensor on every
// rank unless sequence parallelism splits it; what lies inside a TP region (attention core, the activation
// function, the input of a row-parallel projection) is split TP ways. Routed ops: 1 (scaled by the caller).
double tp_saved_fraction(const model::Op& op, int tp, bool sequence_parallel);
// The share of a routed op's saved input one rank of an expert-TP group of `etp` keeps: the activation and the down
// GEMM take the expert's intermediate, of which the rank holds 1/ETP of the columns; the rest take whole rows.
double etp_saved_fraction(const model::Op& op, int etp);

}  // namespace k3::workload
