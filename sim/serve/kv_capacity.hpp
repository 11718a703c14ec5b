#pragma once
// What one attention-DP rank of an instance can hold: HBM per GPU minus its weights (attention, dense and
// shared-expert weights on every rank, sharded TP ways inside it; routed experts, EPLB's redundant copies
// included, spread over the instance's GPUs; with pp stages, a stage's share of each) minus the reserve, in KV
// pages. MLA's latent cache is
// replicated over a rank's TP GPUs (every head reads all of it); GQA caches and KDA states are split by head.
#include <string>
#include <vector>

#include "core/units.hpp"
#include "model/kv_cache.hpp"
#include "model/model_spec.hpp"
#include "sim/serve/serve_spec.hpp"

namespace k3::serve {

struct RankKvCapacity {
  core::Bytes hbm_bytes_per_gpu = 0;
  core::Bytes weight_bytes_per_gpu = 0;            // resident in HBM
  core::Bytes offloaded_bytes_per_gpu = 0;         // kept in host memory (weight_offload_gb)
  core::Bytes reserve_bytes_per_gpu = 0;
  core::Bytes free_bytes_per_gpu = 0;            // for KV pages and states
  core::Bytes cache_bytes_per_token_per_gpu = 0;   // layers whose cache grows with the whole context
  core::Bytes state_bytes_per_sequence_per_gpu = 0;  // recurrent and conv states, whatever the context
  // Sliding-window and chunked layers: each holds min(context, its cap) tokens, so a short sequence
  // reserves only what it fills (Llama 4's 8,192-token chunks cost a 2,000-token sequence 2,000 tokens).
  std::vector<model::KvCache::Bounded> bounded_per_gpu;
  int page_tokens = 64;
  double pages = 0;                              // KV pages one GPU of the rank holds

  // Bytes per GPU one sequence reserves for `tokens` of context (whole pages per layer kind) and its state.
  core::Bytes sequence_bytes(double tokens) const;
};

struct KvCapacityOptions {
  InstanceSpec instance;
  int gpus = 8;                       // of the instance
  core::Bytes hbm_bytes_per_gpu = 0;
  double weight_bytes_per_param = 1;
  double reserve_fraction = 0.1;
  int page_tokens = 64;
  bool mtp_loaded = false;            // the MTP module's weights are resident (MTP speculative decoding)
  double kv_cache_bytes_per_element = 2;  // BF16; 1 for an FP8 cache
  bool prefill = false;               // a disaggregated deployment's prefill instance (it may take pp stages)
};

// The options a serving scenario gives an instance of `is` on `gpus` GPUs of `hbm_bytes_per_gpu` each; `prefill_instance`:
// `is` is the deployment's prefill instance type.
KvCapacityOptions kv_capacity_options(const ServeSpec& spec, const InstanceSpec& is, bool prefill_instance, int gpus,
                                      core::Bytes hbm_bytes_per_gpu, bool mtp_loaded);

// Throws core::InputError at `where` when the weights alone leave no room.
RankKvCapacity rank_kv_capacity(const model::ModelSpec& spec, const KvCapacityOptions& o,
                                const core::InputLocation& where);

}  // namespace k3::serve
