#pragma once
// What a serving run's iterations are costed with: the cost model and link figures (made as a training step
// makes them), each instance's cost options, and one phase's throughput at a fixed batch.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/provenance.hpp"
#include "model/model_spec.hpp"
#include "sim/cost/cost_model.hpp"
#include "sim/net/network_factory.hpp"
#include "sim/serve/iteration_cost.hpp"
#include "sim/serve/serve_spec.hpp"
#include "topologies/topology.hpp"

namespace k3::serve {

struct ServingInputs {
  const model::ModelSpec* model = nullptr;
  const topo::Topology* topology = nullptr;
  const cost::OpCostModel* cost = nullptr;
  net::LinkEfficiency efficiency;   // links, and DeepEP's copy rate
  double comm_sm_slowdown = 1;       // compute beside a running DeepEP kernel (InstanceCostOptions)
};

// The cost options of one instance of the deployment on `gpus` (whole nodes); decode instances verify the MTP drafts.
InstanceCostOptions instance_cost_options(const ServeSpec& spec, const ServingInputs& in, const InstanceSpec& instance,
                                          std::vector<topo::GpuId> gpus, bool decode);

// The cost model and link figures made as a training step makes them: the GPU's datasheet peaks and default
// efficiencies (or `profile`, may be null), the topology's achievable link rates and DeepEP's copy rate.
struct ServingCost {
  core::Provenance provenance;
  std::unique_ptr<cost::OpCostModel> cost;
  net::LinkEfficiency efficiency;
  double comm_sm_slowdown = 1;  // registered: DeepEP's SMs held beside compute

  // What a serving run of `model` on `topology` is costed with (both must outlive the inputs, as this must).
  ServingInputs inputs(const model::ModelSpec& model, const topo::Topology& topology) const {
    return {&model, &topology, cost.get(), efficiency, comm_sm_slowdown};
  }
};
// `overrides` moves registered numbers inside their ranges (one sample of an uncertainty band).
std::unique_ptr<ServingCost> make_serving_cost(const topo::Topology& topology, const cost::CalibrationProfile* profile,
                                               const ServeSpec& spec,
                                               std::map<std::string, double, std::less<>> overrides = {});

// One phase at a fixed batch, as serving benchmarks measure it, on the deployment's prefill (decode) instance:
// prefill at `tokens_per_rank` new tokens per attention-DP rank per forward, from prompts of `prompt_tokens`;
// decode at `sequences_per_rank` running sequences whose contexts average `context_tokens`.
struct PhaseRate {
  IterationTime iteration;
  double tokens_per_s_per_node = 0;  // prompt tokens (prefill) or output tokens (decode)
};
PhaseRate prefill_rate(const ServingInputs& in, const ServeSpec& spec, double tokens_per_rank, double prompt_tokens);
PhaseRate decode_rate(const ServingInputs& in, const ServeSpec& spec, double sequences_per_rank, double context_tokens);

}  // namespace k3::serve
