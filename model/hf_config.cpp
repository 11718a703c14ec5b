#include "model/hf_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "model/spec_checks.hpp"
#include "core/error.hpp"
#include "core/json_file.hpp"
#include "core/text_file.hpp"
#include "core/yaml_input.hpp"

namespace k3::model {

namespace {

using nlohmann::json;

// Canonical (YAML) key -> config.json key, for error locations raised by check_spec.
const std::map<std::string, std::string>& json_names() {
  static const std::map<std::string, std::string> m{
      {"hidden", "hidden_size"}, {"vocab", "vocab_size"}, {"layers", "num_hidden_layers"},
      {"mla.heads", "num_attention_heads"}, {"mla.kv_lora_rank", "kv_lora_rank"}, {"mla.q_lora_rank", "q_lora_rank"},
      {"mla.qk_nope_head_dim", "qk_nope_head_dim"}, {"mla.qk_rope_head_dim", "qk_rope_head_dim"},
      {"mla.v_head_dim", "v_head_dim"}, {"kda.heads", "num_heads"}, {"kda.head_dim", "head_dim"},
      {"kda.short_conv_kernel", "short_conv_kernel_size"}, {"gqa.heads", "num_attention_heads"},
      {"gqa.kv_heads", "num_key_value_heads"}, {"gqa.head_dim", "head_dim"},
      {"dense_ffn.intermediate", "intermediate_size"}, {"moe.routed_experts", "n_routed_experts"},
      {"moe.experts_per_token", "num_experts_per_tok"}, {"moe.shared_experts", "n_shared_experts"},
      {"moe.expert_ffn", "moe_intermediate_size"}, {"moe.shared_expert_ffn", "moe_intermediate_size"},
      {"moe.latent_dim", "routed_expert_hidden_size"}, {"mtp_layers", "num_nextn_predict_layers"},
      {"attn_res_block_size", "attn_res_block_size"}};
  return m;
}

// Keys that exist in published configs but do not change shapes, FLOPs or memory.
const std::set<std::string>& ignored_keys() {
  static const std::set<std::string> s{
      "architectures", "auto_map", "bos_token_id", "eos_token_id", "pad_token_id", "torch_dtype", "dtype",
      "transformers_version", "rope_theta", "rope_scaling", "rms_norm_eps", "initializer_range", "use_cache",
      "attention_bias", "attention_dropout", "quantization_config", "aux_loss_alpha", "ep_size", "moe_layer_freq",
      "n_group", "topk_group", "topk_method", "norm_topk_prob", "routed_scaling_factor", "scoring_func", "seq_aux",
      "pretraining_tp", "mlp_bias", "num_expert_group", "use_grouped_topk", "moe_router_activation_func",
      "moe_renormalize", "mla_use_nope", "tie_word_embeddings", "hidden_act", "max_position_embeddings",
      "model_type", "first_k_dense_replace", "num_key_value_heads", "head_dim", "kv_lora_rank", "q_lora_rank",
      "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "mla_use_output_gate", "attn_res_block_size",
      "num_nextn_predict_layers", "linear_attn_config", "routed_expert_hidden_size", "moe_intermediate_size",
      "intermediate_size", "n_routed_experts", "num_experts", "num_experts_per_tok", "num_experts_per_token",
      "n_shared_experts", "num_shared_experts", "hidden_size", "vocab_size", "num_hidden_layers",
      "num_attention_heads", "routed_expert_norm", "situ_beta", "softcap_beta", "bos_token", "eos_token"};
  return s;
}

class Config {
 public:
  Config(const std::string& text, std::string file) : text_(text), file_(std::move(file)) {
    root_ = core::parse_json_text(text, file_, "a JSON object");
    if (!root_.is_object()) throw core::InputError({file_, "", 1}, "expected a JSON object", "a config.json object");
  }

  // Line of the first occurrence of "key": in the text (0 when it does not appear).
  int line_of(const std::string& key) const {
    const auto pos = text_.find("\"" + key + "\"");
    if (pos == std::string::npos) return 0;
    return 1 + static_cast<int>(std::count(text_.begin(), text_.begin() + static_cast<long>(pos), '\n'));
  }
  core::InputLocation where(const std::string& key) const { return {file_, key, line_of(key)}; }

  const json* find(const json& obj, const std::string& key) const {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return nullptr;
    return &*it;
  }
  long long integer(const json& obj, const std::string& key) const {
    const json* v = find(obj, key);
    if (!v) throw core::InputError(where(key), "required key is missing", "an integer");
    if (!v->is_number_integer()) throw core::InputError(where(key), "expected an integer, got " + v->dump(), "an integer");
    return v->get<long long>();
  }
  long long integer_or(const json& obj, const std::string& key, long long fallback) const {
    return find(obj, key) ? integer(obj, key) : fallback;
  }
  // The first of several spellings used by different families.
  long long integer_any(const json& obj, std::initializer_list<const char*> keys) const {
    for (const char* k : keys) if (find(obj, k)) return integer(obj, k);
    throw core::InputError(where(*keys.begin()), "required key is missing",
                           core::join_allowed(std::vector<std::string>(keys.begin(), keys.end())));
  }
  bool boolean_or(const json& obj, const std::string& key, bool fallback) const {
    const json* v = find(obj, key);
    if (!v) return fallback;
    if (!v->is_boolean()) throw core::InputError(where(key), "expected true or false, got " + v->dump(), "true or false");
    return v->get<bool>();
  }
  std::vector<long long> int_list(const json& obj, const std::string& key) const {
    const json* v = find(obj, key);
    if (!v) throw core::InputError(where(key), "required key is missing", "a list of 1-based layer numbers");
    if (!v->is_array()) throw core::InputError(where(key), "expected a list", "a list of 1-based layer numbers");
    std::vector<long long> out;
    for (const auto& e : *v) {
      if (!e.is_number_integer()) throw core::InputError(where(key), "expected integers, got " + e.dump(), "1-based layer numbers");
      out.push_back(e.get<long long>());
    }
    return out;
  }
  const json& root() const { return root_; }
  const std::string& file() const { return file_; }

 private:
  const std::string& text_;
  std::string file_;
  json root_;
};

Activation activation_of(const Config& c, Activation fallback) {
  const json* v = c.find(c.root(), "hidden_act");
  if (!v) return fallback;
  const auto name = v->is_string() ? v->get<std::string>() : v->dump();
  if (name == "silu" || name == "swiglu") return Activation::SwiGLU;
  if (name == "situ" || name == "situ_glu") return Activation::SiTUGLU;
  if (name == "gelu" || name == "gelu_new" || name == "gelu_pytorch_tanh") return Activation::GeLU;
  throw core::InputError(c.where("hidden_act"), "unknown activation " + v->dump(), "silu, situ or gelu");
}

ModelSpec read(const Config& c) {
  const json& r = c.root();
  for (const auto& [key, value] : r.items()) {
    if (!ignored_keys().contains(key)) {
      throw core::InputError(c.where(key), "unknown key",
                             "the shape keys of the deepseek_v3, kimi_k2, kimi_linear, kimi_k3 and llama families "
                             "(hidden_size, num_hidden_layers, n_routed_experts, ...) and known metadata keys");
    }
  }
  const json* type_v = c.find(r, "model_type");
  const std::vector<std::string> families{"deepseek_v3", "kimi_k2", "kimi_linear", "kimi_k3", "llama"};
  const std::string type = type_v && type_v->is_string() ? type_v->get<std::string>() : "";
  if (std::find(families.begin(), families.end(), type) == families.end()) {
    throw core::InputError(c.where("model_type"), type_v ? "unsupported model_type " + type_v->dump() : "required key is missing",
                           core::join_allowed(families));
  }
  ModelSpec s;
  s.name = std::filesystem::path(c.file()).parent_path().filename().string();
  if (s.name.empty()) s.name = type;
  s.source = c.file();
  s.hidden = static_cast<int>(c.integer(r, "hidden_size"));
  s.vocab = static_cast<int>(c.integer(r, "vocab_size"));
  s.tie_word_embeddings = c.boolean_or(r, "tie_word_embeddings", false);
  s.max_context = c.integer_or(r, "max_position_embeddings", 0);
  const auto n_layers = c.integer(r, "num_hidden_layers");
  if (n_layers <= 0) throw core::InputError(c.where("num_hidden_layers"), fmt::format("must be positive, got {}", n_layers), "an integer >= 1");
  const auto heads = c.integer(r, "num_attention_heads");
  const Activation act = activation_of(c, Activation::SwiGLU);
  KeyLocator locate = [&](const std::string& canonical) {
    // Kimi Linear spells the MoE keys differently; name the spelling the file uses.
    static const std::map<std::string, std::string> kimi_linear_names{
        {"moe.routed_experts", "num_experts"}, {"moe.experts_per_token", "num_experts_per_token"},
        {"moe.shared_experts", "num_shared_experts"}};
    auto alt = kimi_linear_names.find(canonical);
    if (alt != kimi_linear_names.end() && c.line_of(alt->second) > 0) return c.where(alt->second);
    auto it = json_names().find(canonical);
    return c.where(it != json_names().end() ? it->second : canonical);
  };

  std::vector<AttentionKind> attention(static_cast<std::size_t>(n_layers),
                                       type == "llama" ? AttentionKind::GQA : AttentionKind::MLA);
  if (type == "llama") {
    s.gqa.heads = static_cast<int>(heads);
    s.gqa.kv_heads = static_cast<int>(c.integer_or(r, "num_key_value_heads", heads));
    s.gqa.head_dim = c.find(r, "head_dim") ? static_cast<int>(c.integer(r, "head_dim"))
                                           : head_dim_from_hidden(locate, "gqa.heads", heads, s.hidden);
    s.dense_ffn = {static_cast<int>(c.integer(r, "intermediate_size")), act};
    s.mtp_attention = AttentionKind::GQA;
    for (auto a : attention) s.layers.push_back({a, FfnKind::Dense});
    check_spec(s, locate);
    return s;
  }
  // MLA families.
  s.mla.heads = static_cast<int>(heads);
  s.mla.q_lora_rank = static_cast<int>(c.integer_or(r, "q_lora_rank", 0));
  s.mla.kv_lora_rank = static_cast<int>(c.integer(r, "kv_lora_rank"));
  s.mla.qk_nope_head_dim = static_cast<int>(c.integer(r, "qk_nope_head_dim"));
  s.mla.qk_rope_head_dim = static_cast<int>(c.integer(r, "qk_rope_head_dim"));
  s.mla.v_head_dim = static_cast<int>(c.integer(r, "v_head_dim"));
  s.mla.rope = !c.boolean_or(r, "mla_use_nope", type == "kimi_k3");
  s.mla.output_gate = c.boolean_or(r, "mla_use_output_gate", false);
  s.dense_ffn = {static_cast<int>(c.integer(r, "intermediate_size")), act};
  s.moe.routed_experts = static_cast<int>(c.integer_any(r, {"n_routed_experts", "num_experts"}));
  s.moe.experts_per_token = static_cast<int>(c.integer_any(r, {"num_experts_per_tok", "num_experts_per_token"}));
  s.moe.shared_experts = static_cast<int>(
      c.find(r, "n_shared_experts") ? c.integer(r, "n_shared_experts") : c.integer_or(r, "num_shared_experts", 0));
  s.moe.expert_ffn = static_cast<int>(c.integer(r, "moe_intermediate_size"));
  s.moe.shared_expert_ffn = s.moe.expert_ffn;
  s.moe.latent_dim = static_cast<int>(c.integer_or(r, "routed_expert_hidden_size", 0));
  if (s.moe.latent_dim == s.hidden) s.moe.latent_dim = 0;  // experts at full width: no latent projections
  s.moe.latent_norm = s.moe.latent_dim > 0;
  s.moe.activation = act;
  s.mtp_layers = static_cast<int>(c.integer_or(r, "num_nextn_predict_layers", 0));
  s.attn_res_block_size = static_cast<int>(c.integer_or(r, "attn_res_block_size", 0));
  const auto first_dense = c.integer_or(r, "first_k_dense_replace", 0);
  if (first_dense < 0) throw core::InputError(c.where("first_k_dense_replace"), "must not be negative", "an integer >= 0");

  if (const json* lin = c.find(r, "linear_attn_config")) {
    if (!lin->is_object()) throw core::InputError(c.where("linear_attn_config"), "expected an object", "a JSON object");
    for (const auto& [key, value] : lin->items()) {
      static const std::set<std::string> known{"kda_layers", "full_attn_layers", "num_heads", "head_dim",
                                               "short_conv_kernel_size"};
      if (!known.contains(key)) {
        throw core::InputError(c.where(key), "unknown key in linear_attn_config",
                               "kda_layers, full_attn_layers, num_heads, head_dim or short_conv_kernel_size");
      }
    }
    s.kda.heads = static_cast<int>(c.integer(*lin, "num_heads"));
    s.kda.head_dim = static_cast<int>(c.integer(*lin, "head_dim"));
    s.kda.short_conv_kernel = static_cast<int>(c.integer(*lin, "short_conv_kernel_size"));
    // Kimi Linear gates the KDA output with a low-rank g_a/g_b pair; K3 with a full g_proj (DESIGN.md).
    s.kda.output_gate = type == "kimi_k3" ? KdaOutputGate::Full : KdaOutputGate::LowRank;
    std::vector<int> marked(static_cast<std::size_t>(n_layers), 0);
    for (const char* key : {"kda_layers", "full_attn_layers"}) {
      for (auto idx : c.int_list(*lin, key)) {
        if (idx < 1 || idx > n_layers) {
          throw core::InputError(c.where(key), fmt::format("layer {} is outside the model", idx),
                                 fmt::format("1-based layer numbers 1 to {}", n_layers));
        }
        attention[static_cast<std::size_t>(idx - 1)] = std::string(key) == "kda_layers" ? AttentionKind::KDA : AttentionKind::MLA;
        ++marked[static_cast<std::size_t>(idx - 1)];
      }
    }
    for (std::size_t i = 0; i < marked.size(); ++i) {
      if (marked[i] != 1) {
        throw core::InputError(c.where("kda_layers"), fmt::format("layer {} is listed {} times across kda_layers and full_attn_layers", i + 1, marked[i]),
                               "every layer in exactly one of the two lists");
      }
    }
  }
  for (long long i = 0; i < n_layers; ++i) {
    s.layers.push_back({attention[static_cast<std::size_t>(i)], i < first_dense ? FfnKind::Dense : FfnKind::MoE});
  }
  check_spec(s, locate);
  return s;
}

}  // namespace

ModelSpec load_hf_config_string(const std::string& text, const std::string& source_name) {
  return read(Config(text, source_name));
}

ModelSpec load_hf_config(const std::string& path) {
  return load_hf_config_string(core::read_text_file(path, "a readable Hugging Face config.json"), path);
}

}  // namespace k3::model
