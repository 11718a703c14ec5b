#include "topologies/load.hpp"

#include <algorithm>
#include <cctype>

#include "core/text_file.hpp"
#include "topologies/embedded.hpp"

namespace k3::topo {

namespace {

GpuType parse_gpu_type(const std::string& name, const core::YamlValue& v) {
  v.allow_only({"bf16_flops_per_s", "fp8_flops_per_s", "hbm_bytes", "hbm_bytes_per_s", "sms", "source"});
  GpuType t;
  t.name = name;
  t.bf16_flops_per_s = v.at("bf16_flops_per_s").as_positive();
  t.fp8_flops_per_s = v.at("fp8_flops_per_s").as_non_negative();
  t.hbm_bytes = v.at("hbm_bytes").as_positive();
  t.hbm_bytes_per_s = v.at("hbm_bytes_per_s").as_positive();
  t.sms = static_cast<int>(v.at("sms").as_positive_int());
  t.source = v.at("source").as_string();
  return t;
}

std::map<std::string, GpuType> parse_gpu_types(const core::YamlValue& v) {
  std::map<std::string, GpuType> out;
  for (const auto& [name, body] : v.entries()) out[name] = parse_gpu_type(name, body);
  return out;
}

const EmbeddedFile* find_preset(const std::string& name) {
  for (const auto& f : embedded_presets()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

bool looks_like_path(const std::string& s) {
  const auto ends_with = [&](std::string_view suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return s.find('/') != std::string::npos || ends_with(".yaml") || ends_with(".yml") || core::path_exists(s);
}

// "fabric.radix=128" sets root["fabric"]["radix"]; the key is then checked like any other.
void apply_override(YAML::Node root, const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw core::InputError({"--set", text, 0}, "expected key=value", "e.g. nodes=512 or fabric.radix=128");
  }
  const std::string key = text.substr(0, eq), value = text.substr(eq + 1);
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const auto dot = key.find('.', start);
    parts.push_back(key.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  std::vector<YAML::Node> chain{root};
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    if (!chain.back().IsMap() || !chain.back()[parts[i]].IsMap()) {
      throw core::InputError({"--set", key, 0}, "'" + parts[i] + "' is not a section of the topology",
                             "node.<key>, fabric.<key> or a top-level key");
    }
    chain.push_back(chain.back()[parts[i]]);
  }
  chain.back()[parts.back()] = value;
}

}  // namespace

std::vector<std::string> preset_names() {
  std::vector<std::string> out;
  for (const auto& f : embedded_presets()) out.emplace_back(f.name);
  return out;
}

std::map<std::string, GpuType> builtin_gpu_types() {
  return parse_gpu_types(core::YamlValue::parse_string(std::string(embedded_gpu_types()), "topologies/gpu_types.yaml"));
}

GpuType find_gpu_type(const std::string& name, const std::string& flag) {
  const auto lower = [](std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  std::vector<std::string> names;
  for (const auto& [gpu_name, type] : builtin_gpu_types()) {
    names.push_back(gpu_name);
    if (!name.empty() && lower(gpu_name).rfind(lower(name), 0) == 0) return type;
  }
  throw core::InputError({flag, "", 0}, "unknown GPU '" + name + "'", core::join_allowed(names) + " (or a prefix)");
}

ClusterSpec parse_cluster_spec(const core::YamlValue& root) {
  root.allow_only({"name", "nodes", "node", "fabric", "gpu_types"});
  ClusterSpec s;
  s.name = root.at("name").as_string();
  const auto nodes = root.at("nodes");
  if (nodes.as_positive_int() > (1 << 20)) nodes.fail("more than 1,048,576 nodes", "an integer from 1 to 1048576");
  s.nodes = static_cast<int>(nodes.as_positive_int());

  auto gpu_types = builtin_gpu_types();
  if (auto custom = root.find("gpu_types")) {
    for (auto& [name, t] : parse_gpu_types(*custom)) gpu_types[name] = t;
  }
  std::vector<std::string> gpu_names;
  for (const auto& [name, t] : gpu_types) gpu_names.push_back(name);

  const auto node = root.at("node");
  node.allow_only({"type", "gpus", "gpu", "nvlink_bytes_per_s", "nvlink_latency_s", "pcie_bytes_per_s",
                   "pcie_latency_s", "nic_bytes_per_s", "nic_latency_s"});
  auto& n = s.node;
  n.type = node.at("type").as_enum({"hgx8", "nvl72", "custom"});
  const int fixed_gpus = n.type == "hgx8" ? 8 : n.type == "nvl72" ? 72 : 0;
  if (auto g = node.find("gpus")) {
    if (g->as_positive_int() > 4096) g->fail("more than 4096 GPUs in one node", "1 to 4096");
    n.gpus = static_cast<int>(g->as_positive_int());
    if (fixed_gpus != 0 && n.gpus != fixed_gpus) {
      g->fail("node type " + n.type + " has " + std::to_string(fixed_gpus) + " GPUs",
              std::to_string(fixed_gpus) + ", or type custom");
    }
  } else if (fixed_gpus == 0) {
    node.at("gpus");  // throws: custom nodes must say how many GPUs they have
  } else {
    n.gpus = fixed_gpus;
  }
  s.gpu = gpu_types.at(node.at("gpu").as_enum(gpu_names));
  n.nvlink_bytes_per_s = node.at("nvlink_bytes_per_s").as_positive();
  n.nvlink_latency_s = node.at("nvlink_latency_s").as_non_negative();
  n.pcie_bytes_per_s = node.at("pcie_bytes_per_s").as_positive();
  n.pcie_latency_s = node.at("pcie_latency_s").as_non_negative();
  n.nic_bytes_per_s = node.at("nic_bytes_per_s").as_positive();
  n.nic_latency_s = node.at("nic_latency_s").as_non_negative();

  const auto fabric = root.at("fabric");
  fabric.allow_only({"kind", "radix", "oversubscription", "link_bytes_per_s", "link_latency_s"});
  auto& f = s.fabric;
  const auto kind = fabric.at("kind").as_enum(fabric_kind_names());
  for (auto k : {FabricKind::single_switch, FabricKind::fat_tree, FabricKind::rail_fat_tree,
                 FabricKind::multi_plane_fat_tree, FabricKind::fat_tree3}) {
    if (to_string(k) == kind) f.kind = k;
  }
  f.radix = static_cast<int>(std::min<std::int64_t>(fabric.at("radix").as_positive_int(), 1 << 16));
  if (auto os = fabric.find("oversubscription")) {
    for (const auto& item : os->items()) f.oversubscription.push_back(static_cast<int>(std::min<std::int64_t>(item.as_positive_int(), 1 << 16)));
  }
  f.link_bytes_per_s = fabric.at("link_bytes_per_s").as_positive();
  f.link_latency_s = fabric.at("link_latency_s").as_non_negative();
  if (auto p = fabric_problem(s); !p.problem.empty()) {
    const auto at = fabric.find(p.key);
    (at ? *at : fabric).fail(p.problem, p.key == "radix" ? "a larger radix, fewer nodes or another fabric kind"
                                                         : "ratios that divide radix/2, one per switch tier");
  }
  return s;
}

ClusterSpec load_cluster_spec(const std::string& preset_or_path, const std::vector<std::string>& overrides) {
  std::optional<core::YamlValue> root;
  if (const auto* preset = find_preset(preset_or_path)) {
    root = core::YamlValue::parse_string(std::string(preset->text), "topologies/presets/" + preset_or_path + ".yaml");
  } else if (looks_like_path(preset_or_path)) {
    root = core::YamlValue::parse_file(preset_or_path);
  } else {
    throw core::InputError({preset_or_path, "", 0}, "no such topology preset or file",
                           "a preset (" + core::join_allowed(preset_names()) + ") or a path to a .yaml file");
  }
  if (!root->is_map()) root->fail("expected a mapping of topology keys", "name, nodes, node, fabric, gpu_types");
  for (const auto& o : overrides) apply_override(root->node(), o);
  return parse_cluster_spec(*root);
}

Topology load_topology(const std::string& preset_or_path, const std::vector<std::string>& overrides) {
  return build_cluster(load_cluster_spec(preset_or_path, overrides));
}

}  // namespace k3::topo
