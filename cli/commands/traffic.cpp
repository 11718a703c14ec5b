// k3sim traffic: expert all-to-all bytes per token per layer by link class, dedup factors and per-GPU spread,
// for each model (k3 and k3-448 side by side by default), from uniformly routed tokens.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/routing/model_shape.hpp"
#include "model/routing/uniform_traffic.hpp"
#include "core/quantity.hpp"
#include "core/version.hpp"
#include "results/traffic_output.hpp"
#include "reports/sections/traffic.hpp"

namespace k3::cli {

namespace {

struct TrafficOptions {
  std::vector<std::string> models{"k3", "k3-448"};
  int ep = 0;
  int gpus_per_node = 8;
  int tokens_per_gpu = 512;
  int node_limit = 0;
  std::string algorithm = "flat";
  std::string placement = "contiguous";
  std::uint64_t seed = 1;
  bool json = false;
  bool matrix = false;
  std::string report;
};

void print_text(const std::vector<nlohmann::json>& rows) {
  fmt::print("Expert all-to-all per token per MoE layer (uniform routing; dispatch FP8 + scales, combine BF16)\n");
  fmt::print("{:<34}", "");
  for (const auto& r : rows) fmt::print("{:>16}", r["model"].get<std::string>());
  fmt::print("\n");
  // Bytes carry their own binary prefix and unit; other quantities of 10,000 or more a decimal prefix.
  auto line = [&](const char* label, auto value_of, const char* unit) {
    const bool bytes = std::string_view(unit) == "B";
    fmt::print("{:<34}", bytes ? std::string(label) : fmt::format("{} [{}]", label, unit));
    for (const auto& r : rows) {
      const double v = value_of(r);
      fmt::print("{:>16}", bytes ? core::format_bytes(v) : std::fabs(v) >= 1e4 ? core::format_count(v) : fmt::format("{:.4g}", v));
    }
    fmt::print("\n");
  };
  line("routed experts", [](const nlohmann::json& r) { return r["experts"].get<double>(); }, "count");
  line("top-k", [](const nlohmann::json& r) { return r["top_k"].get<double>(); }, "experts");
  line("width", [](const nlohmann::json& r) { return r["width_elements"].get<double>(); }, "elements");
  line("elements before dedup", [](const nlohmann::json& r) { return r["elements_per_token"].get<double>(); }, "elements");
  line("distinct GPUs (closed form)", [](const nlohmann::json& r) { return r["closed_form_gpus_per_token"].get<double>(); }, "GPUs");
  line("distinct GPUs (sampled)", [](const nlohmann::json& r) { return r["distinct_gpus_per_token"].get<double>(); }, "GPUs");
  line("distinct nodes (sampled)", [](const nlohmann::json& r) { return r["distinct_nodes_per_token"].get<double>(); }, "nodes");
  line("dedup factor per GPU", [](const nlohmann::json& r) { return r["dedup_factor"]["gpu"].get<double>(); }, "x");
  line("dedup factor per node", [](const nlohmann::json& r) { return r["dedup_factor"]["node"].get<double>(); }, "x");
  for (const char* cls : {"nvlink", "nic", "fabric", "local"})
    line(fmt::format("{} bytes per token", cls).c_str(),
         [cls](const nlohmann::json& r) { return r["bytes_per_token"][cls].get<double>(); }, "B");
  line("max / mean bytes per GPU", [](const nlohmann::json& r) { return r["max_over_mean_gpu_bytes"].get<double>(); }, "x");
  fmt::print("fabric = NIC bytes that change rail (cross the spine of a rail-optimised fabric); local = no link.\n");
}

}  // namespace

void attach_traffic(CLI::App& command, int& exit_status) {
  auto opt = std::make_shared<TrafficOptions>();
  auto* cmd = &command;
  cmd->option_defaults()->always_capture_default();  // --report lists every option as run
  cmd->add_option("models", opt->models, "Model presets, space- or comma-separated (default: k3 k3-448)")->delimiter(',');
  cmd->add_option("--ep", opt->ep, "Expert-parallel group size (GPUs)")->required();
  cmd->add_option("--gpus-per-node", opt->gpus_per_node, "GPUs per node (default 8)");
  cmd->add_option("--tokens-per-gpu", opt->tokens_per_gpu, "Tokens sampled on each GPU (default 512)");
  cmd->add_option("--node-limit", opt->node_limit, "At most M nodes per token (DeepSeek-V3 routing); 0 = none");
  cmd->add_option("--algorithm", opt->algorithm, "flat (NCCL all-to-all) or deepep (hierarchical)");
  cmd->add_option("--placement", opt->placement, "contiguous or strided");
  cmd->add_option("--seed", opt->seed, "Random seed (default 1)");
  cmd->add_flag("--json", opt->json, "Print JSON");
  cmd->add_flag("--matrix", opt->matrix, "Include the GPU x GPU dispatch and combine matrices in the JSON");
  cmd->add_option("--report", opt->report, "Write a self-contained HTML report (bars, GPU x GPU heatmap) to this file");
  cmd->callback([opt, cmd, &exit_status] {
    std::vector<nlohmann::json> rows;
    std::vector<reports::TrafficMatrix> matrices;
    for (const auto& name : opt->models) {
      routing::UniformTrafficConfig cfg;
      cfg.shape = routing::load_routing_shape(name, "models");
      cfg.placement = {routing::parse_placement_kind(opt->placement, "--placement"), opt->ep, opt->gpus_per_node, 0};
      cfg.traffic.algorithm = routing::parse_dispatch_algorithm(opt->algorithm, "--algorithm");
      cfg.tokens_per_gpu = opt->tokens_per_gpu;
      cfg.node_limit = opt->node_limit;
      cfg.seed = opt->seed;
      const auto result = routing::uniform_traffic(cfg);
      rows.push_back(results::traffic_to_json(cfg, result, opt->matrix));
      matrices.push_back({cfg.shape.name, result.gpus, result.gpus_per_node, result.dispatch_matrix});
    }
    if (!opt->report.empty()) {
      matrices.resize(1);  // one EP group's heatmap: the first model's
      reports::write_traffic_report(opt->report, nlohmann::json{{"models", rows}}, matrices,
                                    {"k3sim traffic", std::string(core::version_string()), opt->seed,
                                     "Options as run (defaults included)", cmd->config_to_str(true, false), {}});
    }
    if (opt->json)
      fmt::print("{}\n", nlohmann::json{{"models", rows}}.dump(2));
    else
      print_text(rows);
    exit_status = 0;
  });
}

}  // namespace k3::cli
