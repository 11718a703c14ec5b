#include "model/model_spec.hpp"

#include <algorithm>
#include <filesystem>

#include "model/hf_config.hpp"
#include "core/error.hpp"
#include "core/yaml_input.hpp"

namespace k3::model {

const char* to_string(AttentionKind k) {
  switch (k) {
    case AttentionKind::KDA: return "KDA";
    case AttentionKind::MLA: return "MLA";
    case AttentionKind::GQA: return "GQA";
  }
  return "?";
}

const char* to_string(FfnKind k) { return k == FfnKind::Dense ? "dense" : "MoE"; }

const char* to_string(Activation a) {
  switch (a) {
    case Activation::SwiGLU: return "SwiGLU";
    case Activation::SiTUGLU: return "SiTU-GLU";
    case Activation::GeLU: return "GeLU";
  }
  return "?";
}

int ModelSpec::count_layers(AttentionKind a) const {
  return static_cast<int>(std::count_if(layers.begin(), layers.end(), [a](const LayerSpec& l) { return l.attention == a; }));
}

int ModelSpec::count_layers(FfnKind f) const {
  return static_cast<int>(std::count_if(layers.begin(), layers.end(), [f](const LayerSpec& l) { return l.ffn == f; }));
}

std::string preset_dir() { return K3SIM_MODEL_PRESET_DIR; }

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(preset_dir())) {
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

ModelSpec load_model(const std::string& arg) {
  const std::filesystem::path p(arg);
  const auto ext = p.extension().string();
  if (ext == ".json") return load_hf_config(arg);
  if (ext == ".yaml" || ext == ".yml") return load_model_yaml(arg);
  const auto names = preset_names();
  if (std::find(names.begin(), names.end(), arg) == names.end()) {
    throw core::InputError({arg, "", 0}, "unknown model preset, and not a .yaml or .json file",
                           core::join_allowed(names) + ", a preset .yaml file or a Hugging Face config.json");
  }
  return load_model_yaml(preset_dir() + "/" + arg + ".yaml");
}

}  // namespace k3::model
