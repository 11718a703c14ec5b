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
#include "model/totals.hpp"
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
  double reserve = 0.1;
  bool json = false;
  std::string report;
};

struct Variant {
  model::ModelSpec spec;
  double total_params = 0;
  std::string note;
};

std::vector<Variant> variants(const model::ModelSpec& base) {
  std::vector<Variant> out;
  auto add = [&](model::ModelSpec s, std::string note) {
    const double params = model::summarize(s, 4096).total_params_without_mtp;
    out.push_back({std::move(s), params, std::move(note)});
  };
  add(base, "as published");
  if (base.name != "kimi-k2") add(model::load_model("kimi-k2"), "K2: 61 MLA layers");
  add(model::with_full_attention_as_gqa(base, 8, 128, base.name + "/gqa8-128+128"),
      "full-attention layers as GQA8, 128+128 (K3 notes)");
  add(model::with_full_attention_as_gqa(base, 1, 256, base.name + "/mfa-256+256"),
      "full-attention layers as MFA (MQA) 256+256 (K3 notes)");
  return out;
}

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
    nlohmann::json j;
    j["gpu"] = {{"name", gpu.name}, {"hbm_bytes", gpu.hbm_bytes}, {"source", gpu.source}};
    j["gpus"] = opt->gpus;
    j["weight_bytes_per_param"] = opt->weight_bytes;
    j["reserve_fraction"] = opt->reserve;
    if (!opt->json) {
      fmt::print("{} x {} ({} HBM each, {}), weights {} B/param, {:.0f}% reserved\n", opt->gpus, gpu.name,
                 core::format_bytes(gpu.hbm_bytes), gpu.source, opt->weight_bytes, opt->reserve * 100);
      fmt::print("{:<30} {:>9} {:>10} {:>12} {:>12} {:>12} {:>12} {:>10}\n", "model", "context", "KV B/token",
                 "state/seq", "per seq", "weights/GPU", "free/GPU", "max batch");
    }
    for (const auto& v : variants(base)) {
      const auto kv = model::kv_cache(v.spec);
      for (double c : *contexts) {
        const auto b = model::kv_budget(v.spec, v.total_params, c, gpu, opt->gpus, opt->weight_bytes, opt->reserve);
        nlohmann::json row{{"model", v.spec.name}, {"note", v.note}, {"context", c},
                           {"kv_cache_bytes_per_token", kv.bytes_per_token},
                           {"state_bytes_per_sequence", kv.state_bytes_per_sequence},
                           {"bytes_per_sequence", b.bytes_per_sequence},
                           {"bytes_per_sequence_per_gpu", b.bytes_per_sequence_per_gpu},
                           {"weight_bytes_per_gpu", b.weight_bytes_per_gpu},
                           {"free_bytes_per_gpu", b.free_bytes_per_gpu}, {"max_batch", b.max_batch}};
        std::string fits;
        if (opt->batch > 0) {
          const double need = opt->batch * b.bytes_per_sequence_per_gpu;
          row["batch"] = opt->batch;
          row["batch_bytes_per_gpu"] = need;
          row["batch_fits"] = opt->batch <= b.max_batch;
          fits = fmt::format("  batch {}: {} per GPU, {}", opt->batch, core::format_bytes(need),
                             opt->batch <= b.max_batch ? "fits" : "does not fit");
        }
        j["rows"].push_back(row);
        if (!opt->json) {
          fmt::print("{:<30} {:>9} {:>10.0f} {:>12} {:>12} {:>12} {:>12} {:>10.0f}{}\n", v.spec.name,
                     fmt::format("{:.0f}", c), kv.bytes_per_token, core::format_bytes(kv.state_bytes_per_sequence),
                     core::format_bytes(b.bytes_per_sequence), core::format_bytes(b.weight_bytes_per_gpu),
                     core::format_bytes(b.free_bytes_per_gpu), b.max_batch, fits);
        }
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
