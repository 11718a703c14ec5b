// k3sim topo <preset|file.yaml> [--json] [--dot out.dot] [--set key=value]...
// Loads a topology, prints its counts, per-GPU injection bandwidth per link class, diameter and
// bisection bandwidth (table or JSON), and optionally writes a Graphviz DOT file.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "topologies/analysis.hpp"
#include "topologies/dot.hpp"
#include "topologies/load.hpp"

namespace k3::cli {

namespace {

struct TopoOptions {
  std::string topology;
  bool json = false;
  std::string dot_path;
  std::vector<std::string> overrides;
};

constexpr topo::LinkClass kClasses[] = {topo::LinkClass::nvlink, topo::LinkClass::pcie, topo::LinkClass::nic,
                                        topo::LinkClass::leaf_spine, topo::LinkClass::spine_core};
constexpr topo::VertexKind kVertexKinds[] = {topo::VertexKind::gpu,  topo::VertexKind::nvswitch, topo::VertexKind::nic,
                                       topo::VertexKind::leaf, topo::VertexKind::spine,    topo::VertexKind::core};

nlohmann::json to_json(const topo::ClusterSpec& spec, const topo::Topology& t, const topo::TopologySummary& s) {
  nlohmann::json j;
  j["name"] = t.name();
  j["fabric"] = std::string(topo::to_string(spec.fabric.kind));
  j["gpus"] = s.gpus;
  j["nodes"] = s.nodes;
  j["gpus_per_node"] = t.gpus_per_node();
  j["switches"] = s.switches;
  j["links"] = s.links;  // directed links; a full-duplex cable is two
  const auto& g = t.gpu_type();
  j["gpu_type"] = {{"name", g.name},          {"bf16_flops_per_s", g.bf16_flops_per_s},
                   {"fp8_flops_per_s", g.fp8_flops_per_s}, {"mxfp8_flops_per_s", g.mxfp8_flops_per_s},
                   {"nvfp4_flops_per_s", g.nvfp4_flops_per_s}, {"hbm_bytes", g.hbm_bytes},
                   {"hbm_bytes_per_s", g.hbm_bytes_per_s}, {"sms", g.sms}, {"source", g.source}};
  j["notes"] = spec.notes;  // what loading changed from the file as written
  for (auto k : kVertexKinds) j["vertices_by_kind"][std::string(topo::to_string(k))] = s.vertices_by_kind[static_cast<std::size_t>(k)];
  for (auto c : kClasses) {
    const auto i = static_cast<std::size_t>(c);
    const std::string name(topo::to_string(c));
    j["links_by_class"][name] = s.links_by_class[i];
    j["injection_bytes_per_s"][name] = s.injection_bytes_per_s[i];
    j["bisection_cut_links_by_class"][name] = s.cut_links_by_class[i];
  }
  j["diameter_hops"] = s.diameter_hops;
  j["bisection_bytes_per_s"] = s.bisection.bytes_per_s;
  return j;
}

void print_table(const topo::ClusterSpec& spec, const topo::Topology& t, const topo::TopologySummary& s) {
  const auto& g = t.gpu_type();
  fmt::print("topology {}: {} GPUs = {} nodes x {} {} ({}), fabric {} of {}-port switches\n", t.name(), s.gpus,
             s.nodes, t.gpus_per_node(), g.name, g.source, topo::to_string(spec.fabric.kind), spec.fabric.radix);
  for (const auto& note : spec.notes) fmt::print("note: {}\n", note);
  fmt::print("{:<12} {:>10}\n", "vertices", "count");
  for (auto k : kVertexKinds) fmt::print("{:<12} {:>10}\n", topo::to_string(k), s.vertices_by_kind[static_cast<std::size_t>(k)]);
  fmt::print("switches     {:>10}\n\n", s.switches);
  fmt::print("{:<12} {:>14} {:>26} {:>16}\n", "link class", "directed links", "injection per GPU (GB/s)", "bisection cut");
  for (auto c : kClasses) {
    const auto i = static_cast<std::size_t>(c);
    fmt::print("{:<12} {:>14} {:>26.1f} {:>16}\n", topo::to_string(c), s.links_by_class[i],
               s.injection_bytes_per_s[i] / core::kGB, s.cut_links_by_class[i]);
  }
  fmt::print("\ndiameter       {} hops (links on the longest GPU-to-GPU route)\n", s.diameter_hops);
  fmt::print("bisection      {:.1f} GB/s per direction ({:.2f} TB/s), max-flow across GPUs [0, {}) | [{}, {})\n",
             s.bisection.bytes_per_s / core::kGB, s.bisection.bytes_per_s / core::kTB, s.gpus / 2, s.gpus / 2, s.gpus);
}

}  // namespace

void attach_topo(CLI::App& command, int& exit_status) {
  auto opt = std::make_shared<TopoOptions>();
  auto* cmd = &command;
  cmd->add_option("topology", opt->topology, "a preset (" + core::join_allowed(topo::preset_names()) + ") or a YAML file")
      ->required();
  cmd->add_flag("--json", opt->json, "print JSON to stdout");
  cmd->add_option("--dot", opt->dot_path, "write the graph as Graphviz DOT to this file");
  cmd->add_option("--set", opt->overrides, "override a topology key, e.g. --set nodes=512 (repeatable)");
  cmd->callback([opt, &exit_status] {
    const auto spec = topo::load_cluster_spec(opt->topology, opt->overrides);
    const auto t = topo::build_cluster(spec);
    const auto summary = topo::summarize(t);
    if (!opt->dot_path.empty()) {
      std::ofstream out(opt->dot_path);
      if (!out) throw core::InputError({"--dot", opt->dot_path, 0}, "cannot write the file", "a writable path");
      topo::write_dot(out, t);
    }
    if (opt->json) {
      fmt::print("{}\n", to_json(spec, t, summary).dump(2));
    } else {
      print_table(spec, t, summary);
    }
    exit_status = 0;
  });
}

}  // namespace k3::cli
