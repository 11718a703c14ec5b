// `k3sim kv <preset> --context 128K,1M --gpu h200 [--batch N] [--gpus N]`: KV cache and recurrent state per
// sequence and per GPU after weights, and the largest batch that fits, for the model against K2 and the
// two attention alternatives the K3 notes discuss (GQA8 128+128 and MFA 256+256 in place of its MLA layers).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "model/kv_cache.hpp"
#include "model/model_spec.hpp"
#include "results/kv_output.hpp"
#include "core/version.hpp"
#include "reports/sections/kv.hpp"
#include "core/error.hpp"
#include "core/quantity.hpp"
#include "topologies/load.hpp"

namespace k3::cli {

namespace {

struct KvOptions {
  std::string target;
  std::string contexts = "128K,1M";
  std::string gpu = "h200";
  int gpus = 64;
  int batch = 0;
  double weight_bytes = 2;
  std::string cache = "bf16";
  double reserve = 0.1;
  bool json = false;
  std::string report;
};

}  // namespace

void attach_kv(CLI::App& command, int& exit_status) {
  auto opt = std::make_shared<KvOptions>();
  auto* cmd = &command;
  cmd->option_defaults()->always_capture_default();  // --report lists every option as run
  cmd->add_option("model", opt->target, "preset name, preset .yaml or config.json")->required();
  cmd->add_option("--context", opt->contexts, "context lengths, comma separated (128K = 131072 tokens)");
  cmd->add_option("--gpu", opt->gpu, "GPU type (h200, h100, b200, ...; HBM from shared/validation/hardware.csv)");
  cmd->add_option("--gpus", opt->gpus, "GPUs holding one model replica (weights and cache spread evenly)");
  cmd->add_option("--batch", opt->batch, "sequences per replica to check against the memory left");
  cmd->add_option("--weight-bytes", opt->weight_bytes, "bytes per weight (2 = BF16, 1 = FP8)");
  cmd->add_option("--kv-cache", opt->cache, "element of the KV cache: bf16 or fp8 (E4M3, as --kv-cache-dtype fp8_e4m3)")
      ->check(CLI::IsMember({"bf16", "fp8"}));
  cmd->add_option("--reserve", opt->reserve, "fraction of HBM kept for activations and runtime (0 to 0.9)");
  cmd->add_flag("--json", opt->json, "print JSON to stdout");
  cmd->add_option("--report", opt->report, "write a self-contained HTML report to this file");
  cmd->callback([opt, cmd, &exit_status]() {
    const auto contexts = core::parse_quantity_list(opt->contexts);
    if (!contexts) throw core::InputError({"--context", "", 0}, "bad context list '" + opt->contexts + "'", "counts such as 128K,1M");
    for (double c : *contexts) {
      if (!(c >= 1)) throw core::InputError({"--context", "", 0}, fmt::format("context {} is not positive", c), "counts >= 1");
    }
    if (opt->gpus < 1) throw core::InputError({"--gpus", "", 0}, fmt::format("{} GPUs", opt->gpus), "an integer >= 1");
    if (opt->batch < 0) throw core::InputError({"--batch", "", 0}, fmt::format("batch {}", opt->batch), "an integer >= 0");
    if (!(opt->weight_bytes > 0)) throw core::InputError({"--weight-bytes", "", 0}, "must be positive", "a number > 0, e.g. 2 or 1");
    if (!(opt->reserve >= 0 && opt->reserve <= 0.9)) throw core::InputError({"--reserve", "", 0}, "out of range", "0 to 0.9");
    const auto gpu_type = topo::find_gpu_type(opt->gpu, "--gpu");
    const model::GpuMemory gpu{gpu_type.name, gpu_type.hbm_bytes, gpu_type.source};
    const auto base = model::load_model(opt->target);
    results::KvBudgetOptions budget{gpu, opt->gpus, opt->weight_bytes, opt->reserve, opt->batch};
    budget.cache_bytes_per_element = opt->cache == "fp8" ? 1.0 : 2.0;
    const nlohmann::json j = results::kv_budget_json(results::kv_models_with_baselines(base), *contexts, budget);
    if (!opt->json) {
      fmt::print("{} x {} ({} HBM each, {}), weights {} B/param, {} KV cache, {:.0f}% reserved\n", opt->gpus, gpu.name,
                 core::format_bytes(gpu.hbm_bytes), gpu.source, opt->weight_bytes, opt->cache == "fp8" ? "FP8" : "BF16",
                 opt->reserve * 100);
      fmt::print("{:<30} {:>14} {:>10} {:>12} {:>12} {:>12} {:>12} {:>10}\n", "model", "context", "KV/token",
                 "state/seq", "per seq", "weights/GPU", "free/GPU", "max batch");
      for (const auto& row : j.at("rows")) {
        std::string fits;
        if (row.contains("batch")) {
          fits = fmt::format("  batch {}: {} per GPU, {}", opt->batch,
                             core::format_bytes(row.at("batch_bytes_per_gpu").get<double>()),
                             row.at("batch_fits").get<bool>() ? "fits" : "does not fit");
        }
        fmt::print("{:<30} {:>14} {:>10} {:>12} {:>12} {:>12} {:>12} {:>10.0f}{}\n",
                   row.at("model").get<std::string>(),
                   core::format_binary_count(row.at("context").get<double>()) + " tokens",
                   core::format_bytes(row.at("kv_cache_bytes_per_token").get<double>()),
                   core::format_bytes(row.at("state_bytes_per_sequence").get<double>()),
                   core::format_bytes(row.at("bytes_per_sequence").get<double>()),
                   core::format_bytes(row.at("weight_bytes_per_gpu").get<double>()),
                   core::format_bytes(row.at("free_bytes_per_gpu").get<double>()), row.at("max_batch").get<double>(),
                   fits);
      }
    }
    if (!opt->report.empty())
      reports::write_kv_report(opt->report, j, {"k3sim kv " + opt->target, std::string(core::version_string()), std::nullopt,
                                                "Options as run (defaults included)", cmd->config_to_str(true, false), {}});
    if (opt->json) fmt::print("{}\n", j.dump(2));
    exit_status = 0;
  });
}

}  // namespace k3::cli
