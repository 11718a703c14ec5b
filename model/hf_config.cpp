#include "model/hf_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "model/hf_config_reader.hpp"
#include "model/hf_families.hpp"
#include "model/spec_checks.hpp"
#include "core/error.hpp"
#include "core/json_file.hpp"
#include "core/text_file.hpp"
#include "core/yaml_input.hpp"

namespace k3::model {

namespace {

using nlohmann::json;
using KeySet = std::set<std::string>;

// A bound on the layer count so that a corrupt file cannot ask for billions of layers.
constexpr long long kMaxLayers = 100000;

// Keys of published configs that change neither shapes, FLOPs nor memory as k3sim models them, in any
// family: tokenizer and special-token ids, dtypes, library versions, RoPE base and scaling (the rotation
// costs the same), norm epsilons, init ranges, dropout, router loss coefficients and routing rules
// (softmax or sigmoid, grouping, normalisation, scaling: the same top-k GEMM work), quantisation of the
// stored checkpoint (k3sim chooses the training precision), GPT-OSS's SwiGLU clamp limit, Llama 4's
// attention temperature tuning and its image token ids, and the vision tower (not counted: k3sim trains
// the text model).
const KeySet& metadata_keys() {
  static const KeySet s{
      "architectures", "auto_map", "bos_token_id", "eos_token_id", "pad_token_id", "bos_token", "eos_token",
      "torch_dtype", "dtype", "transformers_version", "_name_or_path", "_attn_implementation_autoset",
      "rope_theta", "rope_scaling", "rope_parameters", "rms_norm_eps", "initializer_range", "use_cache",
      "attention_dropout", "quantization_config", "aux_loss_alpha", "router_aux_loss_coef", "output_router_logits",
      "router_jitter_noise", "ep_size", "n_group", "topk_group", "topk_method", "norm_topk_prob",
      "routed_scaling_factor", "scoring_func", "seq_aux", "pretraining_tp", "num_expert_group", "use_grouped_topk",
      "moe_router_activation_func", "moe_renormalize", "swiglu_limit", "initial_context_length",
      "attn_temperature_tuning", "attn_scale", "floor_scale", "cache_implementation", "for_llm_compressor",
      "boi_token_index", "eoi_token_index", "image_token_index", "vision_config"};
  return s;
}
using Config = HfConfigReader;

// Every key of the current scope must be read by the family or known not to matter; the latter are noted.
void check_keys(const Config& c, const HfFamily& f, const KeySet& also_allowed, std::vector<std::string>& ignored) {
  for (const auto& [key, value] : c.scope().items()) {
    if (f.reads.contains(key) || also_allowed.contains(key)) continue;
    if (metadata_keys().contains(key) || f.ignores.contains(key)) {
      ignored.push_back(c.prefix() + key);
      continue;
    }
    std::vector<std::string> keys(f.reads.begin(), f.reads.end());
    throw core::InputError(c.where(key), "unknown key: it may change the model and " + f.model_type + " import does not model it",
                           "one of the " + f.model_type + " keys (" + core::join_allowed(keys) +
                               "), or a key that does not change compute (tokenizer ids, dtypes, RoPE scaling, dropout, "
                               "router loss coefficients, quantization_config, ...)");
  }
}

ModelSpec read(Config& c) {
  // model_type first: naming the family decides which keys are known.
  const json* type_v = c.find("model_type");
  const std::string type = type_v && type_v->is_string() ? type_v->get<std::string>() : "";
  const auto& fams = hf_families();
  auto fam = std::find_if(fams.begin(), fams.end(), [&](const HfFamily& f) { return f.model_type == type; });
  if (fam == fams.end()) {
    throw core::InputError(c.where("model_type"), type_v ? "unsupported model_type " + type_v->dump() : "required key is missing",
                           core::join_allowed(hf_config_families()));
  }
  ModelSpec s;
  if (type == "llama4") {  // the text model sits under text_config; the vision tower is not counted
    check_keys(c, *fam, {"text_config", "tie_word_embeddings"}, s.ignored_keys);
    const bool tied_top = c.boolean_or("tie_word_embeddings", false);
    c.enter("text_config");
    check_keys(c, *fam, {}, s.ignored_keys);
    s.tie_word_embeddings = c.boolean_or("tie_word_embeddings", tied_top);
  } else {
    check_keys(c, *fam, {}, s.ignored_keys);
    s.tie_word_embeddings = c.boolean_or("tie_word_embeddings", false);
  }
  s.name = std::filesystem::path(c.file()).parent_path().filename().string();
  if (s.name.empty()) s.name = type;
  s.source = c.file();
  s.hidden = static_cast<int>(c.integer("hidden_size"));
  s.vocab = static_cast<int>(c.integer("vocab_size"));
  s.max_context = c.integer_or("max_position_embeddings", 0);
  const auto n_layers = c.integer("num_hidden_layers");
  if (n_layers <= 0 || n_layers > kMaxLayers) {
    throw core::InputError(c.where("num_hidden_layers"), fmt::format("must be 1 to {}, got {}", kMaxLayers, n_layers),
                           fmt::format("an integer 1 to {}", kMaxLayers));
  }
  s.layers.assign(static_cast<std::size_t>(n_layers), LayerSpec{});
  fam->read(c, s);
  check_spec(s, hf_key_locator(c));
  return s;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> hf_config_families_described() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& f : hf_families()) out.emplace_back(f.model_type, f.description);
  return out;
}

std::vector<std::string> hf_config_families() {
  std::vector<std::string> out;
  for (const auto& f : hf_families()) out.push_back(f.model_type);
  return out;
}

ModelSpec load_hf_config_string(const std::string& text, const std::string& source_name) {
  Config c(text, source_name);
  return read(c);
}

ModelSpec load_hf_config(const std::string& path) {
  return load_hf_config_string(core::read_text_file(path, "a readable Hugging Face config.json"), path);
}

}  // namespace k3::model
