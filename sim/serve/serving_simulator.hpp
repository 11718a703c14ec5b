#pragma once
// A serving deployment replayed on the event engine: requests arrive, wait for KV room, are prefilled in
// chunks under a per-rank token budget, move their KV to a decode instance over RDMA (disaggregated) and
// decode under continuous batching until their last token. Each iteration's time comes from the
// IterationCostModel of its instance; the run is deterministic for a given seed.
#include "sim/serve/serve_result.hpp"
#include "sim/serve/serving_cost.hpp"

namespace k3::serve {

// Throws core::InputError (naming spec.source and the key) when the deployment does not fit the topology,
// the weights leave no KV room, or a request's KV does not fit one rank.
ServeResult simulate_serving(const ServingInputs& in, const ServeSpec& spec);

// simulate_serving with make_serving_cost's cost model.
ServeResult simulate_serving(const model::ModelSpec& model, const topo::Topology& topology,
                             const cost::CalibrationProfile* profile, const ServeSpec& spec);

}  // namespace k3::serve
