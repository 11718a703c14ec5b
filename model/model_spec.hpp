#pragma once
// ModelSpec: the typed description of a transformer (dense or MoE, hybrid KDA + MLA/GQA) that every other
// stage of k3sim reads. It holds shapes only; parameters, FLOPs, bytes and memory are derived from it in
// model/ops.hpp, model/totals.hpp, model/memory.hpp and model/kv_cache.hpp.
//
// Sources of a ModelSpec: a preset shipped in model/presets/<name>.yaml, any YAML file in that format, or a
// Hugging Face config.json (deepseek_v3, kimi_k2, kimi_linear, kimi_k3, llama, qwen2_moe, qwen3_moe, mixtral,
// gpt_oss, llama4, glm4_moe, qwen3_next, minimax_m2 families). load_model()
// picks by the argument; every bad value throws k3::core::InputError naming file, key, line and what is
// allowed (the CLI turns that into exit status 2).
#include <cstdint>
#include <string>
#include <vector>

namespace k3::model {

enum class AttentionKind { KDA, MLA, GQA };
enum class FfnKind { Dense, MoE };
// Gated activations (SwiGLU, SiTU-GLU) use three matrices W1, W2 (gate, up) and W3 (down); GeLU uses two.
enum class Activation { SwiGLU, SiTUGLU, GeLU };

const char* to_string(AttentionKind k);
const char* to_string(FfnKind k);
const char* to_string(Activation a);

// Multi-head latent attention (DeepSeek-V2/V3, K2, K3). q_lora_rank 0 means a full-rank q projection.
struct MlaDims {
  int heads = 0;
  int q_lora_rank = 0;
  int kv_lora_rank = 0;
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;  // K3 keeps the 64 dims but applies no rotation (NoPE): rope = false
  int v_head_dim = 0;
  bool rope = true;
  bool output_gate = false;  // K3: sigmoid gate g_proj [heads*v, d] on the attention output
};

// Kimi Delta Attention (arXiv:2510.26692). Decay gate f is low rank (f_a [head_dim, d], f_b [p, head_dim]).
// Gated DeltaNet (arXiv:2412.06464; Qwen3-Next's linear layers) is the same delta-rule recurrence with one
// decay per head (a_proj [heads, d]) instead of one per channel, and q and k heads that each serve
// heads / key_heads value heads; KDA refines it with the channel-wise gate, so both share these dims.
enum class KdaOutputGate { Full, LowRank };
enum class KdaDecayGate { Channel, Head };
struct KdaDims {
  int heads = 0;      // value heads: one d_k x d_v state each
  int head_dim = 0;   // d_k = d_v
  int key_heads = 0;  // q and k heads; 0 = heads (KDA)
  int short_conv_kernel = 0;
  KdaOutputGate output_gate = KdaOutputGate::Full;  // K3: g_proj [p, d]; Kimi Linear: g_a, g_b low rank
  KdaDecayGate decay_gate = KdaDecayGate::Channel;  // KDA: per channel; Gated DeltaNet: per head
  int chunk = 64;                                   // chunkwise-parallel training form (paper eq. 13-14)
  int qk_heads() const { return key_heads > 0 ? key_heads : heads; }
};

// Grouped-query attention (MHA when kv_heads == heads, MQA when kv_heads == 1). heads x head_dim need not
// equal the hidden size (Qwen3-235B: 64 x 128 = 8192 against hidden 4096).
struct GqaDims {
  int heads = 0;
  int kv_heads = 0;
  int head_dim = 0;
  bool qkv_bias = false;       // biases on the q, k and v projections (Qwen2, GPT-OSS, GLM-4.5)
  bool o_bias = false;         // bias on the output projection (GPT-OSS)
  bool qk_norm = false;        // per-head RMSNorm of q and k, one head_dim weight each (Qwen3, GLM-4.5)
  bool qk_norm_across_heads = false;  // the q and k norms span all heads, one weight per channel (MiniMax-M2)
  bool output_gate = false;    // sigmoid gate [heads x head_dim, d] on the attention output (Qwen3-Next)
  bool sinks = false;          // one learned softmax sink logit per head (GPT-OSS)
  double rope_fraction = 1.0;  // share of each head's dims that RoPE rotates (GLM-4.5: 0.5)
};

struct MoeSpec {
  int routed_experts = 0;
  int experts_per_token = 0;
  int shared_experts = 0;
  int expert_ffn = 0;         // intermediate width of one routed expert
  int shared_expert_ffn = 0;  // intermediate width of one shared expert
  int latent_dim = 0;         // 0: routed experts work at full hidden size; else LatentMoE d -> latent -> d
  bool latent_norm = false;   // Stable LatentMoE: RMSNorm before the up-projection
  bool router_bias = true;    // one bias per expert: loss-free balancing bias, or a trained router bias (GPT-OSS)
  bool expert_bias = false;   // biases on each routed expert's up and down projections (GPT-OSS)
  bool shared_expert_gate = false;  // sigmoid gate Linear(hidden, 1) on the shared experts' output (Qwen2-MoE)
  Activation activation = Activation::SwiGLU;
  // Width of the routed-expert input/output: latent_dim when set, else the hidden size.
  int expert_io_dim(int hidden) const { return latent_dim > 0 ? latent_dim : hidden; }
};

struct DenseFfn {
  int intermediate = 0;
  Activation activation = Activation::SwiGLU;
};

// Softmax-attention layers may look at a bounded span: a sliding window (each query sees itself and the
// window - 1 keys before it: GPT-OSS, Mistral) or fixed chunks (each query sees the keys of its own chunk
// up to itself: Llama 4's chunked local attention). 0 = the whole causal prefix. KDA layers ignore both.
struct LayerSpec {
  AttentionKind attention = AttentionKind::MLA;
  FfnKind ffn = FfnKind::Dense;
  int window = 0;          // sliding-window size in tokens
  int attention_chunk = 0; // chunk size in tokens
  bool bounded() const { return window > 0 || attention_chunk > 0; }
};

// What the publisher counted in its headline parameter figures (model-params.csv), so a comparison uses
// the same convention rather than a fudge factor.
struct PublishedCounts {
  double total_params = 0;      // 0 when none published
  double activated_params = 0;
  bool count_includes_mtp = false;
  // Whether the activated figure counts the input embedding table (Mistral's 12.9B and Qwen's 22B do;
  // k3sim's activated_params never does, DeepSeek's, Moonshot's and OpenAI's figures do not).
  bool activated_includes_embedding = false;
  std::string source;
};

struct ModelSpec {
  std::string name;
  std::string source;  // where the shapes come from (paper, model card, config.json path)
  int hidden = 0;
  int vocab = 0;
  bool tie_word_embeddings = false;
  std::vector<LayerSpec> layers;  // in model order, layer 1 first
  MlaDims mla;                    // used by MLA layers
  KdaDims kda;                    // used by KDA layers
  GqaDims gqa;                    // used by GQA layers
  DenseFfn dense_ffn;             // used by dense-FFN layers
  MoeSpec moe;                    // used by MoE layers
  AttentionKind mtp_attention = AttentionKind::MLA;
  int mtp_layers = 0;             // multi-token-prediction blocks (DeepSeek-V3 style), each attention + FFN
  int attn_res_block_size = 0;    // AttnRes (Attention Residuals) block size in layers; 0 = plain residual
  std::int64_t max_context = 0;   // tokens
  PublishedCounts published;
  // config.json keys that were present and accepted without changing the model (tokenizer ids, RoPE
  // scaling, dropout, router loss coefficients, ...), in file order; empty for YAML presets.
  std::vector<std::string> ignored_keys;

  int count_layers(AttentionKind a) const;
  int count_layers(FfnKind f) const;
  bool has_moe() const { return count_layers(FfnKind::MoE) > 0; }
};

// Checks the shapes are consistent (top_k <= experts, heads divide dimensions, sizes > 0 where used).
// `file` names the origin for the error message; keys are the YAML / config.json key names.
void validate(const ModelSpec& spec, const std::string& file);

// Preset names shipped in model/presets/ (sorted).
std::vector<std::string> preset_names();
// Folder holding the shipped presets (model/presets in the source tree).
std::string preset_dir();

// A preset name, a path to a .yaml/.yml preset file, or a path to a Hugging Face config.json.
ModelSpec load_model(const std::string& preset_name_or_path);
// The YAML preset format (model/presets/README in the header of k3.yaml documents each key).
ModelSpec load_model_yaml(const std::string& path);
ModelSpec load_model_yaml_string(const std::string& text, const std::string& source_name);

}  // namespace k3::model
