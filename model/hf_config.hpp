#pragma once
// Import of Hugging Face config.json files into a ModelSpec.
// Families (model_type): deepseek_v3, kimi_k2 (DeepSeek-V3 layout), kimi_linear (KDA + MLA hybrid),
// kimi_k3 (KDA + gated NoPE MLA + LatentMoE + AttnRes), llama (dense GQA), qwen2_moe (shared expert with a
// sigmoid gate, q/k/v biases), qwen3_moe (per-head q/k norm, optional dense layers), mixtral, gpt_oss
// (sliding/full layers, attention sinks, attention and expert biases), llama4 (text model nested under
// text_config, interleaved MoE, shared expert, chunked attention; the vision tower is not counted) and
// glm4_moe (first dense layers, shared experts, partial RoPE, q/k/v biases, MTP).
//
// model_type is read first: an unsupported one is reported (key, line, supported list) before any other
// complaint. Then every key must be either one the family reads or one listed as not changing compute or
// memory (tokenizer ids, dtypes, RoPE scaling, dropout, router loss coefficients, quantisation, ...); any
// other key is an error naming it, so that a typo or an unmodelled feature cannot pass unnoticed. The
// accepted-but-ignored keys present are returned in ModelSpec::ignored_keys. Errors name the file, the
// JSON key, the line where the key appears in the text, and what is allowed.
#include <string>
#include <utility>
#include <vector>

#include "model/model_spec.hpp"

namespace k3::model {

ModelSpec load_hf_config(const std::string& path);
ModelSpec load_hf_config_string(const std::string& text, const std::string& source_name);

// The model_type values load_hf_config accepts.
std::vector<std::string> hf_config_families();
// Each family with one line on what k3sim reads of it, for `k3sim list families`.
std::vector<std::pair<std::string, std::string>> hf_config_families_described();

}  // namespace k3::model
