#pragma once
// The time of one forward iteration of a serving instance (an EP group whose attention runs data-parallel),
// from the same op list, cost model and network as a training step:
// - every op of every layer at the iteration's tokens (model::build_ops), sharded TP ways inside a rank;
// - attention re-costed for serving: prefill over its query-key pairs (the cached prefix included), decode
//   as absorbed MLA (an MQA over the (kv_lora + rope)-dim latent, DeepSeek-V2 section 2.1 / FlashMLA) or
//   GQA reading each sequence's KV once per step however many tokens MTP verifies, KDA as its recurrent
//   update reading and writing each sequence's state;
// - routed experts at the copies that reach one GPU (uniform over experts: EPLB's goal), reading the
//   weights of only the local experts some token chose (1 - exp(-copies per expert) of them), each expert
//   split moe_tp ways;
// - the dispatch and combine of every MoE layer timed as a DeepEP normal (prefill) or low-latency (decode)
//   all-to-all on the instance's GPUs, or with moe_tp > 1 as a ring all-gather and reduce-scatter, alone on the
//   network;
// - two-batch overlap: the batch in two halves, every block's compute and communication of each half simulated on
//   one GPU's compute and communication streams, communication holding SMs while it runs (two_batch_overlap.hpp);
//   and in decode, optionally, the combine sent expert by expert under the down GEMM on the same streams.
// - weights kept in host memory read over each GPU's host link by every forward, before anything overlaps (vLLM's
//   --cpu-offload-gb reads them through unified memory as the kernels run);
// - with pp stages (pipeline-parallel prefill), the layers split evenly over GPUs / pp each: a batch enters every
//   slowest stage's time and ends after all stages and the activations' hops between them.
// Times are memoised on the batch shape rounded to 1/32 of an octave (2.2%), so long traces stay fast; the
// all-to-alls are simulated a quarter octave apart and interpolated.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "model/model_spec.hpp"
#include "sim/cost/cost_model.hpp"
#include "sim/net/network_factory.hpp"
#include "sim/serve/serve_spec.hpp"
#include "sim/serve/two_batch_overlap.hpp"
#include "topologies/topology.hpp"

namespace k3::serve {

// One iteration of an instance: its most loaded attention-DP rank (every MoE layer waits for the slowest
// rank), and the tokens of all ranks together (what the experts and the all-to-all carry).
struct BatchShape {
  double prefill_tokens = 0;     // new prompt tokens computed on the rank
  double prefill_pairs = 0;      // their query-key pairs, causal, over the cached prefix too
  double prefill_last_chunks = 0;  // sequences whose prompt ends in this chunk (they need logits)
  double decode_sequences = 0;
  double decode_context = 0;     // sum of the decode sequences' context lengths (KV tokens each step reads)
  double instance_tokens = 0;    // all ranks: prefill tokens + decode sequences x tokens per step
};

// With pp stages the parts are one stage's mean share of the batch's work (the whole forward's / pp).
struct IterationTime {
  core::Seconds total = 0;         // until the instance takes the next batch (with pp: its slowest stage's time)
  core::Seconds latency = 0;       // until the batch's last stage ends (with pp: every stage and hop; else total)
  core::Seconds attention = 0;     // attention cores, KDA state updates
  core::Seconds experts = 0;       // routed-expert GEMMs and their activations
  core::Seconds other_compute = 0; // projections, shared experts, norms, router, head
  core::Seconds communication = 0; // dispatch + combine (+ TP all-reduce), before overlap
  core::Seconds host_weights = 0;  // offloaded weights read over the host link, per stage, not overlapped
};

struct InstanceCostOptions {
  InstanceSpec instance;
  std::vector<topo::GpuId> gpus;      // the instance's GPUs, whole nodes
  const net::NetworkModelEntry* network = nullptr;
  net::LinkEfficiency efficiency;
  bool two_batch_overlap = true;
  // The combine of a decode step (DeepEP low-latency, moe_tp 1) sends each local expert's rows as soon as the down
  // GEMM signals that expert done (SGLang's single-batch overlap: sgl-project/sglang#9660, deepseek-ai/DeepEP#483).
  bool combine_with_down_gemm = false;
  // The shared experts run while the dispatch (DeepEP, moe_tp 1) is in flight: they take the layer's input, not the
  // dispatched tokens (single-batch overlap's other half: sgl-project/sglang#9660, #17289).
  bool shared_experts_with_dispatch = false;
  // Compute beside a running communication kernel is this many times slower (its SMs are held: 132 / 112 for
  // DeepEP's 20 of an H100's 132); 1: communication takes no SMs.
  double comm_sm_slowdown = 1;
  int mtp_draft_tokens = 0;           // decode verifies 1 + this many tokens per sequence per step
  double weight_bytes_per_param = 1;
  double dispatch_bytes_per_element = 1;
  double combine_bytes_per_element = 2;
  double kv_cache_bytes_per_element = 2;  // what decode attention reads per cached element
  double host_link_bytes_per_s = 0;       // the GPU's, for instance.weight_offload_bytes_per_gpu
};

// Why an instance of `is` cannot be laid out on `gpus` GPUs (nodes of `gpus_per_node`) for a model of `layers`
// layers: pp must divide the GPUs and be at most the layers, attention_dp and moe_tp divide a stage's GPUs.
// `key` is the instance key at fault ("pp", "attention_dp" or "moe_tp"); nullopt when it can.
struct InstanceShapeProblem {
  std::string key, problem, allowed;
};
std::optional<InstanceShapeProblem> instance_shape_problem(const InstanceSpec& is, int gpus, int gpus_per_node,
                                                           int layers);

class IterationCostModel {
 public:
  // `cost` must outlive the model.
  IterationCostModel(const model::ModelSpec& spec, const topo::Topology& topology, const cost::OpCostModel& cost,
                     InstanceCostOptions options);

  IterationTime time(const BatchShape& shape);
  // Tokens one decode step verifies per sequence.
  int tokens_per_step() const { return 1 + opt_.mtp_draft_tokens; }
  // GPUs of one pipeline stage (of the instance without pp): what the experts and all-to-alls span.
  int gpus() const { return static_cast<int>(stage_gpus_.size()); }
  int tp() const { return tp_; }
  std::size_t memo_size() const { return memo_.size(); }

 private:
  IterationTime compute(const BatchShape& shape);
  struct HalfCost {
    core::Seconds compute = 0, comm = 0;
    IterationTime parts;
    std::vector<IterationStage> stages;  // compute and communication in the block's order
  };
  HalfCost block_cost(const model::OpBlock& block, const BatchShape& s, double f);
  core::Seconds alltoall(double bytes_per_gpu, bool low_latency, double node_bytes);
  core::Seconds simulated_alltoall(int grid, bool low_latency, double node_ratio);
  core::Seconds tp_allreduce(double bytes);
  core::Seconds stage_send(double bytes);
  core::Seconds memoised_collective(int kind, net::CollectiveSpec c, double bytes);
  // An NCCL ring all-gather (reduce-scatter) over the instance's GPUs of `bytes` per GPU's output (input).
  core::Seconds ring_collective(bool reduce_scatter, double bytes);

  const model::ModelSpec& spec_;
  const topo::Topology& topo_;
  const cost::OpCostModel& cost_;
  InstanceCostOptions opt_;
  std::vector<topo::GpuId> stage_gpus_;  // the first pipeline stage's; every stage is costed alike on these
  int tp_ = 1;
  int nodes_ = 1;
  std::map<std::tuple<int, int, int, int, int, int>, IterationTime> memo_;
  std::map<std::tuple<int, int, int>, core::Seconds> collectives_;
};

}  // namespace k3::serve
