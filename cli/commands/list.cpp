// k3sim list [networks|schedules|recompute|collectives|gpus|models|families|topologies] [--json]
// Prints what is registered by name, one line each with its description: the values that scenario keys and
// flags accept. The network, schedule and collective lines come from the registries themselves, the GPU,
// model and topology lines from the shipped catalogues, so this list and the parsers cannot drift apart.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/registry.hpp"
#include "model/hf_config.hpp"
#include "model/model_spec.hpp"
#include "model/recompute.hpp"
#include "sim/cost/kernel_table_import.hpp"
#include "sim/net/collectives/collective_spec.hpp"
#include "sim/net/network_registry.hpp"
#include "sim/parallel/schedule_registry.hpp"
#include "sim/serve/overlap_options.hpp"
#include "topologies/load.hpp"

namespace k3::cli {

namespace {

struct Listed {
  std::string name;
  std::string description;
};

template <typename Registry>
std::vector<Listed> from_registry(const Registry& entries) {
  std::vector<Listed> out;
  for (const auto& e : entries) {
    const auto& entry = core::registry_entry(e);
    out.push_back({std::string(entry.name), std::string(entry.description)});
  }
  return out;
}

std::vector<Listed> gpus() {
  std::vector<Listed> out;
  for (const auto& [name, g] : topo::builtin_gpu_types()) {
    std::string fp8 = g.fp8_flops_per_s > 0 ? fmt::format("FP8 {:.0f} TFLOP/s, ", g.fp8_flops_per_s / 1e12)
                                            : std::string("no FP8, ");
    if (g.mxfp8_flops_per_s > 0) fp8 += fmt::format("MXFP8 {:.0f} TFLOP/s, ", g.mxfp8_flops_per_s / 1e12);
    if (g.nvfp4_flops_per_s > 0) fp8 += fmt::format("NVFP4 {:.0f} TFLOP/s, ", g.nvfp4_flops_per_s / 1e12);
    const std::string tables = cost::shipped_kernel_tables(name);
    const std::string measured =
        tables.empty() ? "" : "; kernels measured: " + std::filesystem::path(tables).filename().string() + " (k3sim profile show)";
    out.push_back({name, fmt::format("BF16 {:.0f} TFLOP/s, {}{:.0f} GB HBM at {:.2f} TB/s, {} SMs ({}){}",
                                     g.bf16_flops_per_s / 1e12, fp8, g.hbm_bytes / 1e9, g.hbm_bytes_per_s / 1e12,
                                     g.sms, g.source, measured)});
  }
  return out;
}

std::vector<Listed> models() {
  std::vector<Listed> out;
  for (const auto& name : model::preset_names()) out.push_back({name, model::load_model(name).source});
  return out;
}

std::vector<Listed> families() {
  std::vector<Listed> out;
  for (const auto& [type, what] : model::hf_config_families_described()) out.push_back({type, what});
  return out;
}

std::vector<Listed> topologies() {
  std::vector<Listed> out;
  for (const auto& name : topo::preset_names()) {
    const auto spec = topo::load_cluster_spec(name);
    out.push_back({name, fmt::format("{} nodes x {} {} ({} GPUs), {} fabric", spec.nodes, spec.node.gpus,
                                     spec.gpu.name, spec.nodes * spec.node.gpus, topo::to_string(spec.fabric.kind))});
  }
  return out;
}

struct ListKind {
  const char* name;
  const char* what;  // heading
  std::vector<Listed> (*entries)();
};

constexpr ListKind kKinds[] = {
    {"networks", "network models (scenario key `network`, --network)",
     [] { return from_registry(net::network_models()); }},
    {"schedules", "pipeline schedules (scenario key `parallel.schedule`)",
     [] { return from_registry(parallel::pipeline_schedules()); }},
    {"recompute", "recomputation modules (scenario key `recompute`, as a list; or none, selective, full)",
     [] { return from_registry(model::recompute_modules()); }},
    {"collectives", "collective algorithms (`k3sim collective --algorithm`)",
     [] { return from_registry(net::collective_algorithms()); }},
    {"overlaps", "what a serving iteration overlaps (serving scenario key `scheduler.overlap`, as a list)",
     [] { return from_registry(serve::overlap_options()); }},
    {"gpus", "GPU types (a topology's node.gpu; topologies/gpu_types.yaml)", gpus},
    {"models", "model presets (scenario key `model`, `k3sim model`; model/presets/)", models},
    {"families", "config.json model families (a Hugging Face config.json as `model`, by its model_type)", families},
    {"topologies", "topology presets (scenario key `cluster.topology`, `k3sim topo`; topologies/presets/)", topologies},
};

struct ListOptions {
  std::string kind;
  bool json = false;
};

int run_list(const ListOptions& o) {
  std::vector<const ListKind*> chosen;
  for (const auto& k : kKinds) {
    if (o.kind.empty() || o.kind == k.name) chosen.push_back(&k);
  }
  if (chosen.empty()) {
    throw core::InputError({"k3sim list", "", 0}, "unknown list '" + o.kind + "'", core::entry_names(kKinds));
  }
  nlohmann::json j = nlohmann::json::object();
  for (const auto* k : chosen) {
    const auto entries = k->entries();
    if (o.json) {
      auto& rows = j[k->name] = nlohmann::json::array();
      for (const auto& e : entries) rows.push_back({{"name", e.name}, {"description", e.description}});
      continue;
    }
    if (chosen.size() > 1) fmt::print("{}{}:\n", k == chosen.front() ? "" : "\n", k->what);
    std::size_t width = 0;
    for (const auto& e : entries) width = std::max(width, e.name.size());
    for (const auto& e : entries) fmt::print("{:<{}}  {}\n", e.name, width, e.description);
  }
  if (o.json) fmt::print("{}\n", j.dump(2));
  return 0;
}

}  // namespace

void attach_list(CLI::App& command, int& exit_status) {
  auto o = std::make_shared<ListOptions>();
  command.add_option("kind", o->kind, "What to list: " + core::entry_names(kKinds) + " (default: all)");
  command.add_flag("--json", o->json, "Print {kind: [{name, description}]}");
  command.callback([o, &exit_status] { exit_status = run_list(*o); });
}

}  // namespace k3::cli
