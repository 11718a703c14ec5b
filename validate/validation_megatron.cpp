// Megatron-LM SC21 Table 1: every row simulated as a variant of scenarios/megatron-sc21-selene.yaml.
#include <fmt/format.h>

#include <cmath>

#include "model/model_spec.hpp"
#include "core/error.hpp"
#include "sim/input/scenario_inputs.hpp"
#include "sim/train/step_band.hpp"
#include "sim/train/step_simulator.hpp"
#include "validate/validation.hpp"
#include "validate/validation_csv.hpp"
#include "topologies/topology.hpp"

namespace k3::validate {

namespace {

constexpr double kSeqLen = 2048;   // SC21 section 5.1: "a sequence length of 2048"
constexpr double kVocab = 51200;   // SC21 section 5.1: "a vocabulary size of 51,200"
constexpr int kGpusPerNode = 8;    // DGX A100

// Micro-batch size, interleaving and DDP implementation of each Table 1 run, from the scripts the authors
// published to reproduce it: NVIDIA/Megatron-LM examples/sc21/run_table_1.sh (MBS, DDP and
// --num-layers-per-virtual-pipeline-stage per MODEL_SIZE). Keyed by layer count, unique per row.
struct RunSettings {
  int layers;
  int micro_batch;
  int layers_per_virtual_stage;  // 0: plain 1F1B
  bool torch_ddp;                // DDP=torch: PyTorch DDP overlaps the gradient all-reduce with the last
                                 // backward pass; DDP=local: Megatron's own DDP all-reduces after it
};
constexpr RunSettings kRunTable1[] = {
    {24, 16, 0, true}, {30, 16, 0, true}, {36, 16, 0, true}, {40, 8, 0, true},  {48, 4, 0, false},
    {60, 2, 5, false}, {80, 2, 5, false}, {96, 1, 3, false}, {105, 1, 1, false}, {128, 1, 0, false},
};
constexpr const char* kRunTable1Source = "NVIDIA/Megatron-LM examples/sc21/run_table_1.sh";

const RunSettings* settings_for(int layers) {
  for (const auto& r : kRunTable1) {
    if (r.layers == layers) return &r;
  }
  return nullptr;
}

// A GPT model as Megatron-LM builds it: MHA, GeLU MLP of 4h, tied input/output embeddings.
std::string gpt_yaml(double params_b, int hidden, int layers, int heads) {
  return fmt::format(
      "name: gpt-{}b\n"
      "source: \"Megatron-LM SC21 Table 1 (GPT, MHA, GeLU FFN 4h, vocab 51200)\"\n"
      "hidden: {}\n"
      "vocab: {}\n"
      "tie_word_embeddings: true\n"
      "layers: {}\n"
      "full_attention: gqa\n"
      "gqa: {{heads: {}, kv_heads: {}}}\n"
      "dense_ffn: {{intermediate: {}, activation: gelu}}\n"
      "max_context: {}\n",
      params_b, hidden, static_cast<int>(kVocab), layers, heads, heads, 4 * hidden, static_cast<int>(kSeqLen));
}

}  // namespace

double megatron_paper_flops(double batch, double seq, double layers, double hidden, double vocab) {
  return 96.0 * batch * seq * layers * hidden * hidden *
         (1.0 + seq / (6.0 * hidden) + vocab / (16.0 * layers * hidden));
}

std::vector<ValidationCase> validate_megatron(const ValidationPaths& paths, std::vector<std::string>& assumptions) {
  const auto table = read_published_csv(paths.data_dir + "/megatron-sc21-table1.csv");
  const std::string base = paths.scenario_dir + "/megatron-sc21-selene.yaml";
  assumptions.push_back(std::string("Megatron-LM SC21 rows: micro-batch size and virtual pipeline stages of each "
                                    "run from ") + kRunTable1Source +
                        " (PyTorch DDP, overlapping the gradient all-reduce, up to 18.4B; Megatron's local DDP "
                        "after the backward passes above); full recomputation, FP16 GEMMs at the CUDA 11 matmul "
                        "rate and FP16 gradient all-reduce, blocking pipeline sends, no ZeRO as in "
                        "scenarios/megatron-sc21-selene.yaml; "
                        "TFLOP/s counted with the paper's formula 96 B s l h^2 (1 + s/6h + V/16lh)");
  std::vector<ValidationCase> out;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const int hidden = static_cast<int>(table.number(r, "hidden"));
    const int layers = static_cast<int>(table.number(r, "layers"));
    const int heads = static_cast<int>(table.number(r, "heads"));
    const int tp = static_cast<int>(table.number(r, "tp"));
    const int pp = static_cast<int>(table.number(r, "pp"));
    const auto gpus = static_cast<std::int64_t>(table.number(r, "gpus"));
    const auto batch = static_cast<std::int64_t>(table.number(r, "batch"));
    const double params_b = table.number(r, "params_b");
    const auto* run = settings_for(layers);
    if (run == nullptr) {
      throw core::InputError({table.file, "layers", 0}, fmt::format("no published run settings for {} layers", layers),
                             "one of the rows of SC21 Table 1");
    }
    const int vpp = run->layers_per_virtual_stage > 0 ? layers / pp / run->layers_per_virtual_stage : 1;
    const bool interleaved = vpp > 1;
    std::vector<input::Override> sets = {
        {"cluster.nodes", std::to_string((gpus + kGpusPerNode - 1) / kGpusPerNode)},
        {"parallel.tp", std::to_string(tp)},
        {"parallel.pp", std::to_string(pp)},
        {"parallel.vpp", std::to_string(vpp)},
        {"parallel.schedule", interleaved ? "interleaved" : "1f1b"},
        {"parallel.overlap_grad_reduce", run->torch_ddp ? "true" : "false"},
        {"batch.seq_len", std::to_string(static_cast<int>(kSeqLen))},
        {"batch.global_batch_seqs", std::to_string(batch)},
        {"batch.micro_batch_seqs", std::to_string(run->micro_batch)},
    };
    input::Scenario scenario = input::load_scenario(base, sets);
    scenario.name = fmt::format("megatron-sc21-{}b", params_b);
    // The row's GPT model replaces the scenario's stand-in model once the scenario is resolved.
    auto in = input::resolve_scenario(std::move(scenario), "");
    in.model = model::load_model_yaml_string(gpt_yaml(params_b, hidden, layers, heads), in.scenario.name);
    train::StepOptions opt;
    opt.trace = false;
    const auto step = train::simulate_step(in.scenario, in.model, *in.topology, in.profile_or_null(), opt);
    const double flops = megatron_paper_flops(static_cast<double>(batch), kSeqLen, layers, hidden, kVocab);
    ValidationCase c;
    c.name = fmt::format("megatron-sc21 {}B", params_b);
    c.group = "megatron-sc21";
    c.quantity = "training step";
    c.metric = "TFLOP/s per GPU";
    c.unit = "TFLOP/s";
    c.predicted = flops / step.step_time_s / static_cast<double>(gpus) / 1e12;
    c.set_memory(train::memory_total(step.memory), step.hbm_bytes);
    c.published = table.number(r, "tflops_per_gpu");
    c.rel_error = (c.predicted - c.published) / c.published;
    train::BandOptions band_options;
    band_options.samples = paths.band_samples;
    band_options.seed = in.scenario.seed;
    const auto band = train::simulate_step_band(in.scenario, in.model, *in.topology, in.profile_or_null(), step,
                                                band_options);
    const auto tflops = [&](double step_s) { return flops / step_s / static_cast<double>(gpus) / 1e12; };
    if (band.samples > 0) c.set_band(tflops(band.step_time_s.p90), tflops(band.step_time_s.p50), tflops(band.step_time_s.p10));
    c.source = "Narayanan et al., SC21, Table 1";
    c.setup = fmt::format("TP{} PP{}{} DP{}, micro-batch {}, {} micro-batches, {} DDP, step {:.3f} s", tp, pp,
                          interleaved ? fmt::format(" interleaved x{}", vpp) : std::string(" 1F1B"),
                          gpus / (tp * pp), run->micro_batch, step.microbatches, run->torch_ddp ? "torch" : "local",
                          step.step_time_s);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace k3::validate
