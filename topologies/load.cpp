#include "topologies/load.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include "core/text_file.hpp"
#include "topologies/embedded.hpp"

namespace k3::topo {

namespace {

GpuType parse_gpu_type(const std::string& name, const core::YamlValue& v) {
  v.allow_only({"bf16_flops_per_s", "fp8_flops_per_s", "mxfp8_flops_per_s", "nvfp4_flops_per_s", "hbm_bytes",
                "hbm_bytes_per_s", "sms", "host_link_bytes_per_s", "host_memory_bytes_per_s", "source"});
  GpuType t;
  t.name = name;
  t.bf16_flops_per_s = v.at("bf16_flops_per_s").as_positive();
  t.fp8_flops_per_s = v.at("fp8_flops_per_s").as_non_negative();
  // Optional so that a GPU type written before the block-scaled formats existed still loads (it has none).
  if (auto f = v.find("mxfp8_flops_per_s")) t.mxfp8_flops_per_s = f->as_non_negative();
  if (auto f = v.find("nvfp4_flops_per_s")) t.nvfp4_flops_per_s = f->as_non_negative();
  t.hbm_bytes = v.at("hbm_bytes").as_positive();
  t.hbm_bytes_per_s = v.at("hbm_bytes_per_s").as_positive();
  t.sms = static_cast<int>(v.at("sms").as_positive_int());
  // Optional: a GPU type that states none cannot stream weights from host memory (serving's weight_offload_gb).
  if (auto h = v.find("host_link_bytes_per_s")) t.host_link_bytes_per_s = h->as_non_negative();
  if (auto h = v.find("host_memory_bytes_per_s")) t.host_memory_bytes_per_s = h->as_non_negative();
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

// "fabric.radix=128" sets root["fabric"]["radix"]; the key is then checked like any other. A top-level key the
// file does not have is added ("gpus=256").
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
  // The value as YAML, so that a list (fabric.oversubscription=[1,2]) is a list; a plain value stays a scalar.
  try {
    chain.back()[parts.back()] = YAML::Load(value);
  } catch (const YAML::Exception& e) {
    throw core::InputError({"--set", key, 0}, "value is not valid YAML: " + e.msg);
  }
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
  const auto types = builtin_gpu_types();
  std::vector<std::string> names;
  // An exact name first ("h20" is H20, not H200-SXM), then the first name it begins.
  for (const auto& [gpu_name, type] : types) {
    names.push_back(gpu_name);
    if (!name.empty() && lower(gpu_name) == lower(name)) return type;
  }
  for (const auto& [gpu_name, type] : types) {
    if (!name.empty() && lower(gpu_name).rfind(lower(name), 0) == 0) return type;
  }
  throw core::InputError({flag, "", 0}, "unknown GPU '" + name + "'", core::join_allowed(names) + " (or a prefix)");
}

namespace {

// `gpus`: the job uses that many GPUs of the cluster, on as few nodes as hold them and the same number on each
// (a rank layout repeats per node; on NVL72 racks 256 GPUs are 64 in each of 4 racks, the usual way of leaving
// spare trays). `gpus_per_node` fixes that number instead (5,120 GPUs as 64 in each of 80 NVL72 racks, the
// other 8 trays' GPUs spare), alone it means that many on every node. The nodes and GPUs the job does not use
// are not built: no traffic of the job crosses them. Returns the name's tag when the job uses part of the
// cluster, else empty.
std::string apply_job_gpus(const core::YamlValue& root, ClusterSpec& s) {
  const auto g = root.find("gpus");
  const auto on_each = root.find("gpus_per_node");
  if (!g && !on_each) return {};
  const long long per_node = s.node.gpus;
  const long long capacity = static_cast<long long>(s.nodes) * per_node;
  long long want = 0, used = 0;
  if (on_each) {
    const core::YamlValue& blame = g ? *g : *on_each;
    const long long k = on_each->as_positive_int();
    if (k > per_node) on_each->fail(fmt::format("a node has {} GPUs", per_node), fmt::format("1 to {}", per_node));
    want = g ? g->as_positive_int() : static_cast<long long>(s.nodes) * k;
    if (want % k != 0) {
      blame.fail(fmt::format("{} GPUs do not fill whole nodes of {} GPUs each (gpus_per_node)", want, k),
                 fmt::format("a multiple of {} up to {}", k, static_cast<long long>(s.nodes) * k));
    }
    used = want / k;
    if (used > s.nodes) {
      blame.fail(fmt::format("{} GPUs at {} per node need {} nodes, more than the cluster's {}", want, k, used, s.nodes),
                 fmt::format("a multiple of {} up to {}, or cluster.nodes: {}", k, static_cast<long long>(s.nodes) * k, used));
    }
  } else {
    want = g->as_positive_int();
    if (want > capacity) {
      g->fail(fmt::format("{} GPUs are more than the cluster's {} nodes x {} GPUs = {}", want, s.nodes, per_node, capacity),
              fmt::format("1 to {}, or more nodes (at least {})", capacity, (want + per_node - 1) / per_node));
    }
    used = (want + per_node - 1) / per_node;
    if (want % used != 0) {
      // The counts around `want` that split evenly over the same number of nodes, and whole nodes.
      std::vector<std::string> near;
      const long long below = want / used * used, above = below + used;
      if (below > (used - 1) * per_node) near.push_back(std::to_string(below));
      if (above <= used * per_node) near.push_back(std::to_string(above));
      g->fail(fmt::format("{} GPUs need {} nodes of {} and do not split evenly over them (the job uses the same number "
                          "of GPUs on each node)", want, used, per_node),
              fmt::format("a multiple of {} up to {} (e.g. {}), a multiple of {} (whole nodes), or gpus_per_node with "
                          "a divisor of {}", used, used * per_node, fmt::join(near, " or "), per_node, want));
    }
  }
  if (want == capacity) return {};
  const long long idle = used * per_node - want;
  s.notes.push_back(fmt::format("the job uses {} of the {} GPUs: {} of the {} GPUs of each of {} of the {} nodes{}", want,
                                capacity, want / used, per_node, used, s.nodes,
                                idle > 0 ? fmt::format(", which leaves {} GPUs of those nodes idle", idle) : ""));
  s.nodes = static_cast<int>(used);
  s.node.gpus = static_cast<int>(want / used);
  return fmt::format("job on {} GPUs, {} per node{}", want, want / used, idle > 0 ? fmt::format(", {} idle", idle) : "");
}

FabricKind fabric_kind(const std::string& name) {
  for (auto k : {FabricKind::single_switch, FabricKind::fat_tree, FabricKind::rail_fat_tree,
                 FabricKind::multi_plane_fat_tree, FabricKind::fat_tree3}) {
    if (to_string(k) == name) return k;
  }
  return FabricKind::fat_tree;  // unreachable: as_enum refused other names
}

// `tiers`: auto (the default) lets a two-tier fabric grow to three tiers when it cannot hold the cluster; 1, 2 or
// 3 fix the tiers (3 with a two-tier kind names the three-tier fat tree). A kind set by an override is fixed too:
// whoever names the kind on the command line or in a scenario gets that kind or an error.
void read_tiers(const core::YamlValue& fabric, FabricSpec& f, bool kind_fixed) {
  const int natural = tiers_of(f.kind);
  const auto t = fabric.find("tiers");
  if (t && !(t->is_scalar() && t->as_string() == "auto")) {
    const auto tiers = t->as_positive_int();
    if (tiers > 3) t->fail("a fabric has 1, 2 or 3 switch tiers", "auto, 1, 2 or 3");
    f.tiers = static_cast<int>(tiers);
    if (f.tiers == 3 && natural == 2) {
      f.kind = FabricKind::fat_tree3;
    } else if (f.tiers != natural) {
      t->fail(fmt::format("fabric kind {} has {} switch tier(s)", to_string(f.kind), natural),
              fmt::format("auto or {} (or 3, a three-tier fat tree, with a two-tier kind)", natural));
    }
  } else if (kind_fixed) {
    f.tiers = natural;
  }
}

// Returns the name's tag when the fabric grew to three tiers, else empty.
std::string read_fabric(const core::YamlValue& fabric, ClusterSpec& s, bool kind_fixed) {
  fabric.allow_only({"kind", "radix", "tiers", "oversubscription", "link_bytes_per_s", "link_latency_s"});
  auto& f = s.fabric;
  f.kind = fabric_kind(fabric.at("kind").as_enum(fabric_kind_names()));
  f.radix = static_cast<int>(std::min<std::int64_t>(fabric.at("radix").as_positive_int(), 1 << 16));
  if (auto os = fabric.find("oversubscription")) {
    for (const auto& item : os->items()) f.oversubscription.push_back(static_cast<int>(std::min<std::int64_t>(item.as_positive_int(), 1 << 16)));
  }
  f.link_bytes_per_s = fabric.at("link_bytes_per_s").as_positive();
  f.link_latency_s = fabric.at("link_latency_s").as_non_negative();
  read_tiers(fabric, f, kind_fixed);
  auto grown = grow_fabric_to_fit(s);
  const auto p = fabric_problem(s);
  if (p.problem.empty()) {
    if (grown.empty()) return {};
    s.notes.push_back(std::move(grown));
    return "fabric grown to fat_tree3";
  }
  if (p.key != "radix") fabric.at(p.key).fail(p.problem, "ratios that divide radix/2, one per switch tier");
  if (f.tiers != 0 && f.tiers < 3) {
    // Fixed tiers: say which key fixed them and how far three tiers of the same switches go.
    const long long half = f.radix / 2;
    const auto at = fabric.find("tiers") ? fabric.at("tiers") : fabric.at("kind");
    at.fail(p.problem, fmt::format("fabric.tiers auto or 3 (three tiers of {}-port switches hold {} NICs), a larger "
                                   "radix or fewer nodes", f.radix, f.radix * half * half));
  }
  fabric.at("radix").fail(p.problem, "a larger radix, fewer nodes or another fabric kind");
}

// `achievable:` maps a link class to the share of its line rate a transfer reaches, each with the measurement
// it comes from: {fraction, low, high, source}; low <= fraction <= high, all in (0, 1].
AchievableRates read_achievable(const core::YamlValue& section) {
  std::vector<std::string> classes;
  for (int c = 0; c < kLinkClassCount; ++c) classes.emplace_back(to_string(static_cast<LinkClass>(c)));
  if (!section.is_map()) section.fail("expected a mapping of link classes", core::join_allowed(classes));
  section.allow_only(classes);
  AchievableRates rates{};
  for (const auto& [name, v] : section.entries()) {
    v.allow_only({"fraction", "low", "high", "source"});
    AchievableRate r;
    const auto fraction = v.at("fraction");
    r.fraction = fraction.as_positive();
    r.low = v.double_or("low", r.fraction);
    r.high = v.double_or("high", r.fraction);
    if (!(r.high <= 1.0) || !(r.low > 0) || !(r.low <= r.fraction) || !(r.fraction <= r.high))
      fraction.fail(fmt::format("fraction {} with range {}..{}", r.fraction, r.low, r.high),
                    "0 < low <= fraction <= high <= 1");
    r.source = v.at("source").as_string();
    const auto c = std::find(classes.begin(), classes.end(), name) - classes.begin();
    rates[static_cast<std::size_t>(c)] = r;
  }
  return rates;
}

ClusterSpec parse_spec(const core::YamlValue& root, bool kind_fixed) {
  root.allow_only({"name", "nodes", "gpus", "gpus_per_node", "node", "fabric", "gpu_types", "achievable"});
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
              std::to_string(fixed_gpus) + ", or type custom (a job on fewer GPUs of each node: top-level gpus)");
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
  if (auto a = root.find("achievable")) s.achievable = read_achievable(*a);

  // The name says what was changed, so that a run's first line shows it; the notes say it in full.
  std::vector<std::string> tags;
  for (auto tag : {apply_job_gpus(root, s), read_fabric(root.at("fabric"), s, kind_fixed)}) {
    if (!tag.empty()) tags.push_back(std::move(tag));
  }
  if (!tags.empty()) s.name += fmt::format(" [{}]", fmt::join(tags, "; "));
  return s;
}

}  // namespace

ClusterSpec parse_cluster_spec(const core::YamlValue& root) { return parse_spec(root, false); }

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
  if (!root->is_map()) root->fail("expected a mapping of topology keys", "name, nodes, gpus, node, fabric, gpu_types, achievable");
  bool kind_fixed = false;
  for (const auto& o : overrides) {
    apply_override(root->node(), o);
    kind_fixed = kind_fixed || o.rfind("fabric.kind=", 0) == 0;
  }
  return parse_spec(*root, kind_fixed);
}

Topology load_topology(const std::string& preset_or_path, const std::vector<std::string>& overrides) {
  return build_cluster(load_cluster_spec(preset_or_path, overrides));
}

}  // namespace k3::topo
