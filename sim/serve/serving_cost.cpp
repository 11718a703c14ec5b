#include "sim/serve/serving_cost.hpp"

#include <fmt/format.h>

#include "sim/cost/kernel_table_import.hpp"
#include "sim/cost/measured_links.hpp"
#include "sim/serve/request_stream.hpp"

namespace k3::serve {

InstanceCostOptions instance_cost_options(const ServeSpec& spec, const ServingInputs& in, const InstanceSpec& instance,
                                          std::vector<topo::GpuId> gpus, bool decode) {
  InstanceCostOptions o;
  o.instance = instance;
  o.gpus = std::move(gpus);
  o.network = spec.network;
  o.efficiency = in.efficiency;
  o.comm_sm_slowdown = in.comm_sm_slowdown;
  o.two_batch_overlap = spec.scheduler.two_batch_overlap;
  o.combine_with_down_gemm = spec.scheduler.combine_with_down_gemm;
  o.shared_experts_with_dispatch = spec.scheduler.shared_experts_with_dispatch;
  o.mtp_draft_tokens = decode ? spec.workload.mtp_draft_tokens : 0;
  o.weight_bytes_per_param = spec.weight_bytes_per_param;
  o.dispatch_bytes_per_element = spec.dispatch_bytes_per_element;
  o.combine_bytes_per_element = spec.combine_bytes_per_element;
  o.kv_cache_bytes_per_element = spec.kv_cache_bytes_per_element;
  o.host_link_bytes_per_s = in.topology->gpu_type().host_link_bytes_per_s;
  return o;
}

std::unique_ptr<ServingCost> make_serving_cost(const topo::Topology& topology, const cost::CalibrationProfile* profile,
                                               const ServeSpec& spec,
                                               std::map<std::string, double, std::less<>> overrides) {
  auto out = std::make_unique<ServingCost>();
  out->provenance = core::Provenance(std::move(overrides));
  const auto& g = topology.gpu_type();
  const cost::DeviceModel device{g.name, g.bf16_flops_per_s, g.fp8_flops_per_s, g.hbm_bytes_per_s, g.sms,
                                 g.source, g.mxfp8_flops_per_s, g.nvfp4_flops_per_s};
  cost::KernelChoice kernels;
  if (!spec.roofline_kernels) kernels.measured = cost::shipped_kernel_tables_of(g.name);
  out->cost = std::make_unique<cost::OpCostModel>(device, profile, spec.gemm_precision, kernels, out->provenance);
  out->efficiency = net::register_link_figures(topology, out->provenance);
  out->efficiency.sm_copy_nvlink = net::register_deepep_copy_rate(out->provenance);
  // DeepEP's kernels hold their SMs while they run; under two-batch overlap the other micro-batch's compute runs on
  // the rest.
  const int held = cost::kDeepepDefaultSms;
  out->comm_sm_slowdown = cost::comm_sm_slowdown(
      g.sms, held,
      fmt::format("while a DeepEP kernel runs, compute beside it runs on the {} of {} SMs it leaves (DeepEP's default: "
                  "deepseek-ai/DeepEP deep_ep/buffer.py, Buffer.num_sms = 20), slower in proportion; half of that "
                  "slowdown as the low end",
                  g.sms - held, g.sms),
      out->provenance);
  return out;
}

namespace {

IterationCostModel phase_model(const ServingInputs& in, const ServeSpec& spec, const InstanceSpec& is, bool decode) {
  std::vector<topo::GpuId> gpus;
  for (int g = 0; g < is.nodes * in.topology->gpus_per_node(); ++g) gpus.push_back(static_cast<topo::GpuId>(g));
  return IterationCostModel(*in.model, *in.topology, *in.cost, instance_cost_options(spec, in, is, gpus, decode));
}

}  // namespace

PhaseRate prefill_rate(const ServingInputs& in, const ServeSpec& spec, double tokens_per_rank, double prompt_tokens) {
  const InstanceSpec& is = spec.deployment.prefill;
  IterationCostModel m = phase_model(in, spec, is, false);
  // Whole prompts first, then a part of the next: each attends causally to itself.
  const double whole = std::floor(tokens_per_rank / prompt_tokens), rest = tokens_per_rank - whole * prompt_tokens;
  BatchShape s;
  s.prefill_tokens = tokens_per_rank;
  s.prefill_pairs = whole * prompt_tokens * prompt_tokens / 2 + rest * rest / 2;
  s.prefill_last_chunks = whole;
  s.instance_tokens = tokens_per_rank * is.attention_dp;
  PhaseRate r;
  r.iteration = m.time(s);
  r.tokens_per_s_per_node = s.instance_tokens / r.iteration.total / is.nodes;
  return r;
}

PhaseRate decode_rate(const ServingInputs& in, const ServeSpec& spec, double sequences_per_rank, double context_tokens) {
  const InstanceSpec& is = spec.deployment.decode;
  IterationCostModel m = phase_model(in, spec, is, true);
  BatchShape s;
  s.decode_sequences = sequences_per_rank;
  s.decode_context = sequences_per_rank * context_tokens;
  s.instance_tokens = sequences_per_rank * m.tokens_per_step() * is.attention_dp;
  PhaseRate r;
  r.iteration = m.time(s);
  r.tokens_per_s_per_node =
      sequences_per_rank * is.attention_dp * expected_tokens_per_step(spec.workload) / r.iteration.total / is.nodes;
  return r;
}

}  // namespace k3::serve
