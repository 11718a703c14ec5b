// SGLang's DeepSeek-V3 deployment on 96 H100 (LMSYS blog, 2025-05-05; shared/validation/
// sglang-deepseek-96xh100-serving.csv): prefill and decode throughput per node of the serving model at the batch
// the blog measured, on scenarios/serving/deepseek-v3-h100-96-serving.yaml (the blog's deployment). The blog measured each
// phase alone with "unlimited resources for the non-tested phase", at a fixed batch: prefill 16,384 tokens per
// device per forward, decode 256 sequences per device (its --cuda-graph-bs 256) of 2,000-token prompts and
// 100-token outputs (sgl-project/sglang#6017's benchmark flags), so the iteration model runs at that batch.
#include <fmt/format.h>

#include "core/error.hpp"
#include "sim/input/serve_scenario.hpp"
#include "sim/serve/serving_simulator.hpp"
#include "sim/train/step_band.hpp"
#include "validate/validation.hpp"
#include "validate/validation_csv.hpp"

namespace k3::validate {

namespace {

constexpr double kPrefillTokensPerRank = 16384;
constexpr double kDecodeSequencesPerRank = 256;
constexpr double kOutputTokens = 100;

}  // namespace

std::vector<ValidationCase> validate_sglang(const ValidationPaths& paths, std::vector<std::string>& assumptions) {
  const auto table = read_published_csv(paths.data_dir + "/sglang-deepseek-96xh100-serving.csv");
  const auto in = input::load_serve_inputs(paths.scenario_dir + "/serving/deepseek-v3-h100-96-serving.yaml", {});
  const auto cost = serve::make_serving_cost(*in.inputs.topology, in.inputs.profile_or_null(), in.spec);
  const serve::ServingInputs serving = cost->inputs(in.inputs.model, *in.inputs.topology);
  // The band: the same phase with the registered numbers it reads (GPU efficiencies, link rates, DeepEP's copy
  // rate) moved inside their ranges.
  std::vector<std::unique_ptr<serve::ServingCost>> sampled;
  for (auto& overrides : train::band_samples(cost->provenance.entries(), paths.band_samples, in.spec.seed))
    sampled.push_back(serve::make_serving_cost(*in.inputs.topology, in.inputs.profile_or_null(), in.spec, overrides));
  assumptions.push_back(fmt::format(
      "SGLang DeepSeek-V3 serving rows: scenarios/serving/deepseek-v3-h100-96-serving.yaml, each phase at the blog's batch "
      "({:.0f} prefill tokens per GPU per forward; {:.0f} decode sequences per GPU at a mean context of input + {:.0f} "
      "/ 2 tokens), expert load uniform (EPLB's goal, {} redundant experts)",
      kPrefillTokensPerRank, kDecodeSequencesPerRank, kOutputTokens, in.spec.deployment.decode.redundant_experts));
  std::vector<ValidationCase> out;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const std::string phase = table.text(r, "phase");
    serve::ServeSpec spec = in.spec;
    serve::InstanceSpec& is = phase == "prefill" ? spec.deployment.prefill : spec.deployment.decode;
    is.nodes = static_cast<int>(table.number(r, "nodes"));
    is.attention_dp = static_cast<int>(table.number(r, "attention_dp"));
    const double input = table.number(r, "input_len");
    ValidationCase c;
    c.group = "sglang";
    c.quantity = "serving throughput";
    c.name = fmt::format("sglang deepseek-v3 {} {} nodes", phase, is.nodes);
    c.unit = "tokens/s";
    const bool prefill = phase == "prefill";
    const auto phase_rate = [&](const serve::ServingInputs& s) {
      return prefill ? serve::prefill_rate(s, spec, kPrefillTokensPerRank, input)
                     : serve::decode_rate(s, spec, kDecodeSequencesPerRank, input + kOutputTokens / 2);
    };
    if (!prefill && phase != "decode")
      throw core::InputError({table.file, "phase", static_cast<int>(r) + 2}, "unknown phase '" + phase + "'",
                             "prefill or decode");
    const serve::PhaseRate rate = phase_rate(serving);
    if (prefill) {
      c.metric = "input tokens/s per node";
      c.setup = fmt::format("prefill EP{} attention DP{}, {:.0f} tokens per GPU per forward, {:.0f}-token prompts, "
                            "iteration {:.1f} ms", is.nodes * in.inputs.topology->gpus_per_node(), is.attention_dp, kPrefillTokensPerRank, input,
                            rate.iteration.total * 1e3);
    } else {
      c.metric = "output tokens/s per node";
      c.setup = fmt::format("decode EP{} attention DP{}, {:.0f} sequences per GPU at {:.0f} tokens of context, "
                            "step {:.1f} ms", is.nodes * in.inputs.topology->gpus_per_node(), is.attention_dp, kDecodeSequencesPerRank,
                            input + kOutputTokens / 2, rate.iteration.total * 1e3);
    }
    {
      const auto& t = rate.iteration;
      c.setup += fmt::format(" (attention {:.1f}, routed experts {:.1f}, other compute {:.1f}, all-to-all {:.1f} ms "
                             "before two-batch overlap)",
                             t.attention * 1e3, t.experts * 1e3, t.other_compute * 1e3, t.communication * 1e3);
    }
    c.predicted = rate.tokens_per_s_per_node;
    c.published = table.number(r, "tokens_per_s_per_node");
    c.rel_error = (c.predicted - c.published) / c.published;
    if (!sampled.empty()) {
      std::vector<double> rates;
      for (const auto& c2 : sampled)
        rates.push_back(phase_rate({&in.inputs.model, in.inputs.topology.get(), c2->cost.get(), c2->efficiency})
                            .tokens_per_s_per_node);
      const auto q = train::quantiles(rates);
      c.set_band(q.p10, q.p50, q.p90);
    }
    c.source = "LMSYS blog 2025-05-05, DeepSeek-V3 with PD disaggregation and large-scale EP on 96 H100";
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace k3::validate
