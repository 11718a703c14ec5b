#pragma once
// The per-layer MoE inputs of a step simulation, sampled with the routing library: how many routed rows
// each GPU of the EP group gets (balanced, or the state of a load balancer after N steps) and the all-to-all
// byte matrices of dispatch and combine for one micro-batch.
//
// To keep a 93-layer model cheap, `distinct_samples` independent router states are drawn and cycled over
// the MoE layers (layer l uses sample l mod distinct_samples); each is a real routing of `sample_tokens`
// tokens per GPU (node-limited when asked), whose traffic is scaled to the micro-batch's tokens. A token
// is sent once per destination GPU however many of its experts live there; for the hierarchical
// algorithm once per destination node over the NIC.
#include <cstdint>
#include <string>
#include <vector>

#include "model/model_spec.hpp"
#include "model/balancing/balancer_state.hpp"
#include "core/error.hpp"
#include "sim/workload/pass_builder.hpp"
#include "sim/workload/workload_spec.hpp"

namespace k3::workload {

struct MoeSamplingSpec {
  std::string model_name;
  int experts = 0;
  int top_k = 0;
  int width = 0;                // elements per token copy: the latent dim, else hidden
  std::vector<parallel::GpuIndex> group;  // the EP group's GPUs, in rank order
  int gpus_per_node = 8;        // of the cluster: GPU g sits in node g / gpus_per_node
  int node_limit = 0;           // 0: off
  // DeepEP low-latency: every (token, expert) copy is its own message, so two experts of one GPU cost two
  // copies; otherwise a GPU receives one copy per token however many of its experts the token chose.
  bool copy_per_expert = false;
  double dispatch_bytes_per_element = 2;
  double combine_bytes_per_element = 2;
  double gradient_bytes_per_element = 2;  // backward all-to-alls carry BF16 gradients
  double tokens_per_gpu = 4096;           // one micro-batch
  bool balanced = true;                   // true: every GPU gets exactly its share of routed rows
  std::string balancer = "qb-hist";       // else: the load after `balancer_steps` updates of this balancer
  int balancer_steps = 20;
  int balancer_tokens_per_rank = 8192;    // the inline balancer's batch: 8 ranks of this many tokens per step
  int bins = 1000;
  const balancing::BalancerState* state = nullptr;  // when set, the load comes from it, not an inline balancer
  core::InputLocation state_at;                    // expert_load.state, for a state with too few samples
  int sample_tokens = 64;       // per GPU; the matrices keep only class means, which converge fast
  int distinct_samples = 4;
  std::uint64_t seed = 1;
};

struct MoeSample {
  std::vector<MoeLayerLoad> layers;     // one per distinct sample
  std::vector<double> max_over_mean;    // routed rows per GPU, per sample
  double distinct_gpus_per_token = 0;   // mean over samples
  double distinct_nodes_per_token = 0;
  std::string load_source;
  // The routed load per GPU comes from counts over a finite batch; even a perfectly balanced router shows
  // max/mean > 1 on it. Expected max/mean - 1 of per-GPU token copies for that batch (closed form,
  // balancing::maxvio_noise_floor with the batch's top-k copies spread over the EP group's GPUs), and the
  // batch size; 0 when the load is exact (uniform).
  double gpu_noise_floor = 0;
  double sample_tokens_per_step = 0;
};

// Reads `expert_load.state` and checks it was written for this model's routing (experts and top-k);
// errors name the state file, or the scenario key when the file is for another model.
balancing::BalancerState read_balancer_state(const ExpertLoadSpec& load, const model::ModelSpec& spec);

// The routing half of a sample: for each distinct sample, the elements each GPU of the group sends each GPU
// (and each other node) for the sampled tokens, and the distinct GPUs and nodes they went to, before the
// expert load, the micro-batch's tokens and the element bytes are applied. It reads only what
// routed_traffic_key holds (the routing shape, the node limit, the seed and sample sizes, and the group's
// members by node), so samples that differ in anything else draw the same routing: a K3 plan search's 28
// samples share 3.
struct RoutedTraffic {
  struct Sample {
    TrafficMatrix to_experts;    // dispatch: token GPU -> expert GPU, elements
    TrafficMatrix from_experts;  // combine: expert GPU -> token GPU, elements
    double gpu_copies = 0;       // distinct destination GPUs, summed over the sampled tokens
    double node_copies = 0;      // distinct destination nodes, likewise
  };
  std::vector<Sample> samples;  // one per distinct sample
};
std::string routed_traffic_key(const MoeSamplingSpec& spec);
RoutedTraffic route_samples(const MoeSamplingSpec& spec);

// `routed`: route_samples of a spec with the same routed_traffic_key, or null to route here.
MoeSample sample_moe(const MoeSamplingSpec& spec, const RoutedTraffic* routed = nullptr);

}  // namespace k3::workload
