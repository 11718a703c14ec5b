// Megatron-Core's Qwen3-235B-A22B runs on 256 H100 (yanring/Megatron-MoE-ModelZoo, via
// shared/validation/megatron-moe-qwen3-235b*.csv): every row simulated as a variant of
// scenarios/qwen3-235b-h100-256.yaml with the row's parallel folding, dispatcher, batch and recompute.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.hpp"
#include "sim/input/scenario_inputs.hpp"
#include "sim/train/step_band.hpp"
#include "sim/train/step_simulator.hpp"
#include "topologies/topology.hpp"
#include "validate/validation.hpp"
#include "validate/validation_csv.hpp"

namespace k3::validate {

namespace {

constexpr const char* kSource = "yanring/Megatron-MoE-ModelZoo best_practice/Qwen3/readme.md";

// The model zoo's recompute column as a scenario `recompute:` value: full, none, or the modules of a
// selective recompute joined by '+' ("norm+act": Megatron-Core's layernorm and moe_act modules).
std::string recompute_of(const std::string& column) {
  if (column == "full") return "full";
  if (column.empty() || column == "none") return "none";
  std::vector<std::string> modules;
  std::size_t from = 0;
  while (from <= column.size()) {
    const auto plus = std::min(column.find('+', from), column.size());
    std::string m = column.substr(from, plus - from);
    if (m == "act") m = "moe_act";
    if (m == "layernorm") m = "norm";
    modules.push_back(m);
    from = plus + 1;
  }
  return fmt::format("[{}]", fmt::join(modules, ", "));
}

struct RowRun {
  train::StepResult step;
  train::StepBand band;
  input::ScenarioInputs in;
};

RowRun run_row(const ValidationPaths& paths, std::vector<input::Override> sets, const std::string& name) {
  input::Scenario scenario = input::load_scenario(paths.scenario_dir + "/qwen3-235b-h100-256.yaml", sets);
  scenario.name = name;
  auto in = input::resolve_scenario(std::move(scenario), "");
  train::StepOptions opt;
  opt.trace = false;
  auto step = train::simulate_step(in.scenario, in.model, *in.topology, in.profile_or_null(), opt);
  train::BandOptions band_options;
  band_options.samples = paths.band_samples;
  band_options.seed = in.scenario.seed;
  auto band = train::simulate_step_band(in.scenario, in.model, *in.topology, in.profile_or_null(), step, band_options);
  return {std::move(step), std::move(band), std::move(in)};
}

}  // namespace

double megatron_moe_flops(const MegatronMoeShape& m, double batch, double seq) {
  const double q_ratio = static_cast<double>(m.heads) * m.head_dim / m.hidden;
  const double attention = (1.0 + static_cast<double>(m.kv_heads) / m.heads + seq / m.hidden / 2.0) * q_ratio;
  const double mlp = static_cast<double>(m.expert_ffn) * m.top_k * 1.5 / m.hidden;  // SwiGLU: 3/2
  const double logit = static_cast<double>(m.vocab) / (2.0 * m.layers * m.hidden);
  return 12.0 * batch * seq * m.layers * static_cast<double>(m.hidden) * m.hidden * (attention + mlp + logit);
}

std::vector<ValidationCase> validate_qwen3(const ValidationPaths& paths, std::vector<std::string>& assumptions) {
  assumptions.push_back(std::string("Qwen3-235B-A22B rows (") + kSource +
                        "): each row's TP, CP, EP, ETP, PP, VPP, FSDP, micro-batch, global batch and dispatcher on "
                        "scenarios/qwen3-235b-h100-256.yaml (32 x 8 H100, flow network, uniform expert load); "
                        "'norm+act' recomputes the norm and moe_act modules (Megatron-Core's layernorm and moe_act); a2a_overlap yes runs "
                        "Megatron-Core's EP all-to-all overlap (parallel.a2a_overlap: steady-state F and B as one F&B pass); PP32 x VPP3 runs the layout E|(t|)*94L "
                        "(embedding and loss as stages of their own; the zoo does not say its layout). Long-context TFLOP/s counted "
                        "with Megatron-LM's num_floating_point_operations (causal attention halved), which gives "
                        "246 TFLOP/s for the first row's published 19.7 s (published: 245)");
  std::vector<ValidationCase> out;
  const MegatronMoeShape qwen3;
  const auto table = read_published_csv(paths.data_dir + "/megatron-moe-qwen3-235b.csv");
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const auto num = [&](const char* col) { return static_cast<int>(table.number(r, col)); };
    const int tp = num("tp"), ep = num("ep"), pp = num("pp"), vpp = num("vpp"), etp = num("etp");
    const bool fsdp = table.text(r, "fsdp") == "yes";
    const std::string dispatcher = table.text(r, "dispatcher");
    const std::string recompute = recompute_of(table.text(r, "recompute"));
    const std::string setup = fmt::format("{} TP{} EP{} ETP{} PP{} VPP{}{} MBS{} GBS{} recompute {}{}", dispatcher, tp,
                                          ep, etp, pp, vpp, fsdp ? " FSDP" : "", num("mbs"), num("gbs"),
                                          table.text(r, "recompute").empty() ? "none" : table.text(r, "recompute"),
                                          table.text(r, "a2a_overlap") == "yes" ? ", a2a overlap" : "");
    std::vector<input::Override> sets = {
        {"parallel.tp", std::to_string(tp)},
        {"parallel.ep", std::to_string(ep)},
        {"parallel.etp", std::to_string(etp)},
        {"parallel.pp", std::to_string(pp)},
        {"parallel.vpp", std::to_string(vpp)},
        {"parallel.schedule", vpp > 1 ? "interleaved" : "1f1b"},
        {"parallel.fsdp", fsdp ? "true" : "false"},
        {"parallel.zero", fsdp ? "3" : "1"},
        {"batch.seq_len", std::to_string(num("seq_len"))},
        {"batch.micro_batch_seqs", std::to_string(num("mbs"))},
        {"batch.global_batch_seqs", std::to_string(num("gbs"))},
        {"communication.alltoall", dispatcher == "deepep" ? "deepep" : "flat"},
        {"recompute", recompute},
        {"parallel.a2a_overlap", table.text(r, "a2a_overlap") == "yes" ? "true" : "false"},
    };
    // PP32 x VPP3 = 96 virtual stages for 94 layers: the embedding and the loss each take a stage of their
    // own, as Megatron-Core's --pipeline-model-parallel-layout lets them (the zoo does not print its layout).
    if (pp * vpp == qwen3.layers + 2) {
      sets.push_back({"parallel.pipeline_layout", fmt::format("E|(t|)*{}L", qwen3.layers)});
    }
    const std::string name = fmt::format("qwen3-235b {}", setup);
    try {
      const auto run = run_row(paths, sets, name);
      ValidationCase c;
      c.name = name;
      c.group = "megatron-moe-qwen3";
      c.quantity = "training step";
      c.metric = "step time";
      c.unit = "s";
      c.predicted = run.step.step_time_s;
      c.set_memory(train::memory_total(run.step.memory), run.step.hbm_bytes);
      c.published = table.number(r, "step_time_s");
      c.rel_error = (c.predicted - c.published) / c.published;
      if (run.band.samples > 0) c.set_band(run.band.step_time_s.p10, run.band.step_time_s.p50, run.band.step_time_s.p90);
      c.source = kSource;
      c.setup = setup;
      out.push_back(std::move(c));
    } catch (const core::InputError& e) {
      // A row the simulator cannot express yet is listed with the reason instead of a number.
      assumptions.push_back(fmt::format("Qwen3-235B row not simulated ({}): {}", setup, e.what()));
    }
  }
  const auto lc = read_published_csv(paths.data_dir + "/megatron-moe-qwen3-235b-long-context.csv");
  for (std::size_t r = 0; r < lc.rows.size(); ++r) {
    const auto num = [&](const char* col) { return static_cast<int>(lc.number(r, col)); };
    const int seq = num("seq_len"), cp = num("cp"), gbs = num("gbs");
    const std::string setup =
        fmt::format("seq {} TP{} CP{} EP{} PP{} VPP{} GBS{}, recompute norm+moe, forced balance", seq, num("tp"), cp,
                    num("ep"), num("pp"), num("vpp"), gbs);
    std::vector<input::Override> sets = {
        {"cluster.nodes", std::to_string(num("nodes"))},
        {"parallel.tp", std::to_string(num("tp"))},
        {"parallel.cp", std::to_string(cp)},
        {"parallel.ep", std::to_string(num("ep"))},
        {"parallel.pp", std::to_string(num("pp"))},
        {"parallel.vpp", std::to_string(num("vpp"))},
        {"batch.seq_len", std::to_string(seq)},
        {"batch.global_batch_seqs", std::to_string(gbs)},
        // The file's header: "selective recompute of layernorm and moe modules" (Megatron-Core's
        // --recompute-modules layernorm moe).
        {"recompute", "[norm, moe]"},
    };
    const std::string name = fmt::format("qwen3-235b long context {}", setup);
    try {
      const auto run = run_row(paths, sets, name);
      const double gpus = static_cast<double>(run.step.gpus);
      const auto tflops = [&](double step_s) { return megatron_moe_flops(qwen3, gbs, seq) / step_s / gpus / 1e12; };
      ValidationCase c;
      c.name = name;
      c.group = "megatron-moe-qwen3-long-context";
      c.quantity = "training step";
      c.metric = "TFLOP/s per GPU";
      c.unit = "TFLOP/s";
      c.predicted = tflops(run.step.step_time_s);
      c.set_memory(train::memory_total(run.step.memory), run.step.hbm_bytes);
      c.published = lc.number(r, "tflops_forced_balance");
      c.rel_error = (c.predicted - c.published) / c.published;
      if (run.band.samples > 0) c.set_band(tflops(run.band.step_time_s.p90), tflops(run.band.step_time_s.p50),
                                           tflops(run.band.step_time_s.p10));
      c.source = std::string(kSource) + ", Long Context";
      c.setup = fmt::format("{}, step {:.3f} s", setup, run.step.step_time_s);
      out.push_back(std::move(c));
    } catch (const core::InputError& e) {
      assumptions.push_back(fmt::format("Qwen3-235B long-context row not simulated ({}): {}", setup, e.what()));
    }
  }
  return out;
}

}  // namespace k3::validate
