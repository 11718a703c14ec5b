#pragma once
// Import of Hugging Face config.json files into a ModelSpec.
// Families (model_type): deepseek_v3, kimi_k2 (DeepSeek-V3 layout), kimi_linear (KDA + MLA hybrid),
// kimi_k3 (KDA + gated NoPE MLA + LatentMoE + AttnRes) and llama (dense GQA).
// Errors name the file, the JSON key, the line where the key appears in the text, and what is allowed.
// Unknown top-level keys are errors too, except the ones listed as not affecting shapes (tokenizer ids,
// dtypes, rope scaling, quantisation, ...), so that a typo in a shape key cannot pass unnoticed.
#include <string>

#include "model/model_spec.hpp"

namespace k3::model {

ModelSpec load_hf_config(const std::string& path);
ModelSpec load_hf_config_string(const std::string& text, const std::string& source_name);

}  // namespace k3::model
