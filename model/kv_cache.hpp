#pragma once
// KV cache per token and recurrent state per sequence, and how many sequences fit in GPU memory.
//   MLA: (kv_lora_rank + qk_rope_head_dim) x 2 B per MLA layer per token (the compressed latent and the
//        shared rope key; absorbed-decode form).
//   GQA: 2 (K, V) x kv_heads x head_dim x 2 B per layer per token.
//   KDA: no per-token cache; per sequence heads x d_k x d_v x 4 B (fp32 state) plus the short-conv state,
//        (kernel - 1) x 3 x heads x head_dim x 2 B (the last kernel-1 inputs of the q, k, v convolutions).
//   A sliding-window layer (window W) or chunked layer (chunk C) keeps at most W (C) tokens: its cache stops
//   growing there, so it is counted per sequence, at that cap, beside the KDA state (GPT-OSS-120B: 18
//   sliding layers x 128 tokens x 2 x 8 x 64 x 2 B = 4.5 MiB per sequence, whatever the context).
// K3: 24 x 576 x 2 = 27,648 B per token; 69 x (6 MiB + 221,184 B) per sequence.
#include <string>
#include <vector>

#include "model/model_spec.hpp"
#include "core/units.hpp"

namespace k3::model {

struct KvCache {
  core::Bytes bytes_per_token = 0;           // layers whose cache grows with the context, BF16
  // Fixed per sequence: KDA recurrent + conv state, and bounded (window / chunk) layers filled to their cap.
  // context x bytes_per_token + this is exact once the context reaches the largest cap, an upper bound below.
  core::Bytes state_bytes_per_sequence = 0;
  core::Bytes recurrent_state_bytes_per_sequence = 0;
  core::Bytes conv_state_bytes_per_sequence = 0;
  core::Bytes bytes_per_token_per_attention_layer = 0;  // one full-attention layer
  core::Bytes bounded_bytes_per_sequence = 0;  // bounded layers at their cap (part of state_bytes_per_sequence)
  int cache_layers = 0;                      // layers with a per-token cache growing with the context
  int bounded_layers = 0;                    // sliding-window or chunked layers
  int state_layers = 0;                      // layers with a per-sequence state
  struct Bounded { core::Bytes bytes_per_token = 0; double max_tokens = 0; };
  std::vector<Bounded> bounded;              // one per bounded layer

  // Cache and state of one sequence at `context` tokens: a bounded layer holds min(context, cap) tokens.
  core::Bytes bytes_per_sequence(double context) const;
};

// `cache_bytes_per_element`: the MLA / GQA cache's element (2 BF16, 1 FP8 with per-tensor scales); KDA states
// stay fp32 (recurrent) and BF16 (conv).
KvCache kv_cache(const ModelSpec& spec, double cache_bytes_per_element = 2);

// A GPU's memory as the vendor states it: the caller fills it from the GPU catalogue
// (topologies/gpu_types.yaml, copied from shared/validation/hardware.csv with its source).
struct GpuMemory {
  std::string name;
  core::Bytes hbm_bytes = 0;
  std::string source;
};

// Memory budget of one model replica spread over `gpus` GPUs: weights sharded evenly, the rest for the
// KV cache and state, which are assumed spread evenly across the replica's GPUs too (e.g. a
// context-parallel or head-sharded cache). `reserve_fraction` of HBM is kept for activations and runtime.
struct KvCacheBudget {
  std::string model;
  double context = 0;                         // tokens per sequence
  core::Bytes bytes_per_sequence = 0;         // KV cache + state at that context
  core::Bytes weight_bytes_per_gpu = 0;
  core::Bytes free_bytes_per_gpu = 0;         // after weights and the reserve
  core::Bytes bytes_per_sequence_per_gpu = 0; // bytes_per_sequence / gpus
  double max_batch = 0;                       // whole sequences that fit (0 when weights alone do not fit)
};

// `cache_bytes_per_element`: 2 for a BF16 cache, 1 for FP8 (kv_cache()).
KvCacheBudget kv_budget(const ModelSpec& spec, double total_params, double context, const GpuMemory& gpu, int gpus,
                        double weight_bytes_per_param, double reserve_fraction, double cache_bytes_per_element = 2);

// The same model with its full-attention layers replaced by GQA (kv_heads, head_dim for q, k and v), as
// the K3 notes compare: GQA8 128+128 and MFA 256+256 (an MQA with 256-dim heads).
ModelSpec with_full_attention_as_gqa(const ModelSpec& spec, int kv_heads, int head_dim, const std::string& name);

}  // namespace k3::model
