#pragma once
// `k3sim validate`: the simulator against published measurements (validate/data/*.csv, derived from
// ../shared/validation by published_data.hpp). Some
// constants were once set right after looking at these errors; README "How far to trust it" lists them and
// what they were re-derived from:
//   - DeepSeek-V3 pre-training on 2,048 H800: step time (scenarios/deepseek-v3-h800-2048.yaml);
//   - Megatron-LM SC21 Table 1: TFLOP/s per GPU of ten GPT models on A100 Selene, counted with the
//     paper's own FLOP formula;
//   - Megatron-Core Qwen3-235B-A22B on 256 H100: step time of five layouts, TFLOP/s of four long-context runs;
//   - DeepEP normal kernels: dispatch and combine bottleneck bandwidth of the collective model alone;
//   - SGLang's DeepSeek-V3 serving on 96 H100: prefill and decode tokens/s per node (validation_sglang.cpp).
// Each case also gets its uncertainty band (sim/train/step_band.hpp) and whether the published value lies in it.
#include <nlohmann/json.hpp>

#include "core/progress.hpp"
#include "validate/model_discrepancy.hpp"

#include <cstdio>
#include <string>
#include <vector>

namespace k3::validate {

struct ValidationPaths {
  std::string data_dir;      // folder holding the published CSVs
  std::string scenario_dir;  // folder holding deepseek-v3-h800-2048.yaml and megatron-sc21-selene.yaml
  int band_samples = 64;     // samples of each case's uncertainty band (sim/train/step_band.hpp); 0: none
  std::FILE* progress = nullptr;  // progress by family (core::Progress), or none
  core::ProgressMode progress_mode = core::ProgressMode::quiet;
};

// <source>/validate/data and <source>/scenarios of the tree k3sim was built from.
ValidationPaths default_validation_paths();

struct ValidationCase {
  std::string name;    // "deepseek-v3-h800-2048", "megatron-sc21 18.4B", "deepep ep16 rdma"
  std::string group;   // the family: one published table (deepseek-v3, megatron-sc21, deepep, ...)
  std::string quantity;  // what is predicted: "training step", "collective bandwidth", "serving throughput"
  std::string metric;  // "step time", "TFLOP/s per GPU", "dispatch bottleneck bandwidth"
  std::string unit;    // s, TFLOP/s, GB/s
  double predicted = 0;
  double published = 0;
  double rel_error = 0;  // (predicted - published) / published
  std::string source;    // where the published figure comes from
  std::string setup;     // what was simulated (layout, schedule, micro-batch)
  // The mechanism band: P10..P90 of the prediction over the ranges of the inputs it read (when band samples were
  // asked for), in the case's unit, and whether the published value lies inside it.
  bool has_band = false;
  double p10 = 0, p50 = 0, p90 = 0;
  bool in_mechanism_band = false;
  void set_band(double lo, double mid, double hi);
  // The band a planner reads: the mechanism band (or the point prediction without one) widened by the model
  // discrepancy fitted on the other families (model_discrepancy.hpp); its P50 is the centre's, unmoved.
  double centre = 0;         // the mechanism band's P50, or the prediction without a band
  double p50_rel_error = 0;  // (centre - published) / published
  DiscrepancyFit discrepancy;
  double band_p10 = 0, band_p90 = 0;
  bool in_band = false;
  void set_discrepancy(const DiscrepancyFit& fit);
  // Training rows: the most loaded GPU's memory as simulated against its HBM (did the published run fit?).
  bool has_memory = false;
  double memory_bytes = 0, hbm_bytes = 0;
  void set_memory(double memory, double hbm) {
    has_memory = true;
    memory_bytes = memory;
    hbm_bytes = hbm;
  }
};

// One family's rows together: the error of the band's centre, the coverage of its P10..P90 band (with the
// discrepancy fitted without it) and the band's mean width as a fraction of its centre.
struct FamilySummary {
  std::string family, quantity;
  int rows = 0, in_band = 0;
  double min_error = 0, max_error = 0, mean_abs_error = 0;  // of the centre, fractions
  double mean_band_width = 0;                               // mean (P90 - P10) / P50
  DiscrepancyFit discrepancy;
};

struct ValidationReport {
  std::vector<ValidationCase> cases;
  std::vector<FamilySummary> families;  // worst first: the largest mean |error| of the centre
  double megatron_mean_abs_error = 0;  // mean |rel_error| over the Megatron rows, as a fraction
  int cases_with_band = 0, cases_in_band = 0;  // coverage: published values inside the P10..P90 band
  double mean_band_width = 0;                  // over every case, (P90 - P10) / P50
  std::vector<std::string> assumptions;  // each with its source
};

// Widens every case's band by the model discrepancy fitted leaving its own family out, and sums the families
// and the coverage. run_validation calls it; tests call it on cases of their own.
void apply_discrepancy(ValidationReport& report);

// The discrepancy of each predicted quantity fitted on every family (no family left out): the table run and compare
// widen their bands with, written to validate/data/model-discrepancy.csv by `k3sim validate --write-discrepancy`.
std::vector<results::QuantityDiscrepancy> discrepancy_table(const ValidationReport& report);
// The shipped table's name, as outputs give it (the same on every machine), and its row for `quantity`, read from
// <source>/validate/data/model-discrepancy.csv (core::InputError naming the file when it or the row is missing).
inline constexpr const char* kDiscrepancyTableName = "validate/data/model-discrepancy.csv";
results::QuantityDiscrepancy shipped_discrepancy(const std::string& quantity);

// Runs every case. Throws core::InputError when a CSV or scenario is missing or malformed.
ValidationReport run_validation(const ValidationPaths& paths);

// The individual groups, for tests and for running part of the suite.
std::vector<ValidationCase> validate_deepseek_v3(const ValidationPaths& paths, std::vector<std::string>& assumptions);
std::vector<ValidationCase> validate_megatron(const ValidationPaths& paths, std::vector<std::string>& assumptions);
std::vector<ValidationCase> validate_deepep(const ValidationPaths& paths, std::vector<std::string>& assumptions);
// SGLang's DeepSeek-V3 serving on 96 H100: prefill and decode tokens/s per node.
std::vector<ValidationCase> validate_sglang(const ValidationPaths& paths, std::vector<std::string>& assumptions);
// Megatron-Core's Qwen3-235B-A22B layouts on 256 H100 (step time) and its long-context runs (TFLOP/s).
std::vector<ValidationCase> validate_qwen3(const ValidationPaths& paths, std::vector<std::string>& assumptions);

// Megatron-LM's FLOPs per iteration for a GQA + MoE model (megatron/training/training.py
// num_floating_point_operations: 12 B s l h^2 ((1 + g/a + s/2h) q/h + f k 3/2 / h + V / 2lh), causal
// attention halved, SwiGLU experts). Defaults: Qwen3-235B-A22B's config.json.
struct MegatronMoeShape {
  int hidden = 4096, layers = 94, heads = 64, kv_heads = 4, head_dim = 128, expert_ffn = 1536, top_k = 8;
  int vocab = 151936;
};
double megatron_moe_flops(const MegatronMoeShape& m, double batch, double seq);

// Megatron-LM SC21 FLOPs per iteration (paper section 5.1, with activation recomputation):
// 96 B s l h^2 (1 + s / 6h + V / 16 l h).
double megatron_paper_flops(double batch, double seq, double layers, double hidden, double vocab);

nlohmann::json validation_to_json(const ValidationReport& report);
std::string validation_to_text(const ValidationReport& report);
// The per-family table as Markdown, as README "How far to trust it" carries it.
std::string families_to_markdown(const ValidationReport& report);

}  // namespace k3::validate
