#pragma once
// What a step's passes are costed and replayed with, made from the scenario and the topology, each figure it
// assumes registered in the step's provenance: the op cost model (GPU, calibration profile, GEMM precision and
// kernels) and the pass runner's configuration (link efficiencies, all-to-all algorithm and DeepEP chunks, the
// compute slowdown of the SMs communication kernels hold, and the memos shared through `reuse`).
#include "core/provenance.hpp"
#include "sim/cost/calibration_profile.hpp"
#include "sim/cost/cost_model.hpp"
#include "sim/exec/pass_runner.hpp"
#include "sim/exec/step_graph.hpp"
#include "sim/parallel/rank_mapping.hpp"
#include "sim/train/step_reuse.hpp"
#include "sim/train/step_spec.hpp"
#include "topologies/topology.hpp"

namespace k3::train {

// Throws core::InputError naming the scenario for kernels or a precision the GPU does not have.
cost::OpCostModel make_step_cost_model(const StepSpec& sc, const topo::Topology& topo,
                                       const cost::CalibrationProfile* profile, core::Provenance& prov);
// `reuse`: null for a run that shares nothing.
exec::PassRunnerConfig make_step_runner_config(const StepSpec& sc, const topo::Topology& topo, const StepReuse* reuse,
                                               core::Provenance& prov);

// An activation (or its gradient) of `bytes` sent from pipeline rank `from` to `to`, as collectives in phases run one
// after another: under TP every rank of the group holds the whole tensor, so each sends its 1/TP slice to its peer
// and the receivers all-gather it (Megatron-LM's scatter/gather optimisation, SC21 section 4.1), the slices
// crossing TP links in parallel.
std::vector<std::vector<net::CollectiveSpec>> pipeline_transfer(const parallel::RankMapping& map, double bytes, int from,
                                                                int to);

// A step graph (`k3sim run --export-graph`, read back with exec::graph_from_json) run again on the scenario's
// network: its makespan, which equals the step's to the picosecond when the graph is the step's own. Throws
// core::InputError for a collective on a GPU the cluster does not have.
core::SimTime replay_step_graph(const exec::StepGraph& graph, const StepSpec& scenario, const topo::Topology& topology);

// The SMs NCCL's kernels hold while they run (one CTA per channel), registered in `prov`: what compute beside the
// step graph's DP rings and activation sends loses (exec::run_step_graph).
struct NcclSms {
  int ring = 0;  // a ring collective between nodes (the DP reductions and gathers)
  int p2p = 0;   // a send to one peer (the pipeline's activations)
};
NcclSms register_nccl_sms(core::Provenance& prov);

}  // namespace k3::train
