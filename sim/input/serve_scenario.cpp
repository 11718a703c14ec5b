#include "sim/input/serve_scenario.hpp"

#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/quantity.hpp"
#include "core/registry.hpp"
#include "core/text_file.hpp"
#include "core/yaml_input.hpp"
#include "sim/serve/iteration_cost.hpp"
#include "sim/serve/overlap_options.hpp"

namespace k3::input {

using core::InputError;
using core::YamlValue;

namespace {

serve::InstanceSpec read_instance(const YamlValue& v, int& instances, std::vector<InstanceKeyLines>& lines,
                                  bool decode, bool may_pipeline) {
  v.allow_only({"nodes", "attention_dp", "moe_tp", "pp", "instances", "redundant_experts", "weight_offload_gb"});
  serve::InstanceSpec is;
  is.nodes = static_cast<int>(v.at("nodes").as_positive_int());
  is.attention_dp = static_cast<int>(v.at("attention_dp").as_positive_int());
  if (auto t = v.find("moe_tp")) is.moe_tp = static_cast<int>(t->as_positive_int());
  if (auto p = v.find("pp")) {
    is.pp = static_cast<int>(p->as_positive_int());
    if (is.pp > 1 && !may_pipeline)
      p->fail("pipeline stages are modelled for prefill instances only",
              "pp under deployment.prefill of a disaggregated deployment; 1 here");
  }
  is.redundant_experts = static_cast<int>(v.int_or("redundant_experts", 0));
  if (is.redundant_experts < 0) v.at("redundant_experts").fail("must not be negative", "an integer >= 0");
  instances = static_cast<int>(v.int_or("instances", 1));
  if (instances < 1) v.at("instances").fail("must be at least 1", "an integer >= 1");
  if (auto o = v.find("weight_offload_gb")) is.weight_offload_bytes_per_gpu = o->as_non_negative() * 1e9;
  const auto where = [&v](const char* k) { return v.has(k) ? v.at(k).where() : v.where(); };
  lines.push_back({decode, where("attention_dp"), where("moe_tp"), where("pp"), where("weight_offload_gb")});
  return is;
}

// A length: a number of tokens, or {kind: fixed|uniform|lognormal, mean, min, max, sigma}.
serve::LengthDistribution read_length(const YamlValue& v) {
  serve::LengthDistribution d;
  if (v.is_scalar()) {
    d.mean = v.as_quantity();
    if (!(d.mean >= 1)) v.fail("must be at least 1 token", "a token count >= 1, e.g. 2000 or 32K");
    return d;
  }
  v.allow_only({"kind", "mean", "min", "max", "sigma"});
  const std::string kind = v.at("kind").as_enum({"fixed", "uniform", "lognormal"});
  d.kind = kind == "fixed" ? serve::LengthDistribution::Kind::fixed
           : kind == "uniform" ? serve::LengthDistribution::Kind::uniform
                               : serve::LengthDistribution::Kind::lognormal;
  if (auto m = v.find("min")) d.min = m->as_quantity();
  if (auto m = v.find("max")) d.max = m->as_quantity();
  if (!(d.min >= 1)) v.at("min").fail("must be at least 1 token", "a token count >= 1");
  if (!(d.max >= d.min)) v.at("max").fail("is below min", "max >= min");
  if (d.kind == serve::LengthDistribution::Kind::uniform) {
    if (!v.has("min") || !v.has("max")) v.fail("a uniform length needs min and max", "kind: uniform, min: N, max: M");
    d.mean = (d.min + d.max) / 2;
  } else {
    d.mean = v.at("mean").as_quantity();
    if (!(d.mean >= 1)) v.at("mean").fail("must be at least 1 token", "a token count >= 1");
  }
  if (auto s = v.find("sigma")) d.sigma = s->as_positive();
  return d;
}

// CSV with a header naming arrival_s, prompt_tokens and output_tokens (any order, other columns ignored).
std::vector<serve::TraceRequest> read_trace(const std::string& path, const YamlValue& at) {
  const std::string text = core::read_text_file(path, "a CSV trace: arrival_s,prompt_tokens,output_tokens");
  std::istringstream in(text);
  std::string line;
  int number = 0;
  std::vector<int> col(3, -1);
  std::vector<serve::TraceRequest> out;
  auto fail = [&](const std::string& problem) {
    throw InputError({path, "line " + std::to_string(number), number}, problem,
                     "a header arrival_s,prompt_tokens,output_tokens, then one request per line (seconds, tokens >= 1)");
  };
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
    if (col[0] < 0) {
      const char* names[] = {"arrival_s", "prompt_tokens", "output_tokens"};
      for (int k = 0; k < 3; ++k)
        for (std::size_t c = 0; c < cells.size(); ++c)
          if (cells[c] == names[k]) col[static_cast<std::size_t>(k)] = static_cast<int>(c);
      for (int c : col)
        if (c < 0) fail("the header does not name arrival_s, prompt_tokens and output_tokens");
      continue;
    }
    double v[3];
    for (int k = 0; k < 3; ++k) {
      const auto c = static_cast<std::size_t>(col[static_cast<std::size_t>(k)]);
      if (c >= cells.size()) fail("has too few columns");
      try {
        std::size_t used = 0;
        v[k] = std::stod(cells[c], &used);
        if (used != cells[c].size()) throw std::invalid_argument("trailing");
      } catch (const std::exception&) {
        fail("'" + cells[c] + "' is not a number");
      }
    }
    if (!(v[0] >= 0) || !(v[1] >= 1) || !(v[2] >= 1)) fail("arrival must be >= 0 s and lengths >= 1 token");
    out.push_back({v[0], std::floor(v[1]), std::floor(v[2])});
  }
  if (out.empty()) at.fail("trace " + path + " has no requests", "a CSV with at least one request");
  return out;
}

void read_workload(const YamlValue& w, serve::ServeWorkload& out, const std::string& source) {
  w.allow_only({"arrival", "prompt_tokens", "output_tokens", "prefix_cache_hit", "mtp", "duration_s", "warmup_s"});
  const auto a = w.at("arrival");
  a.allow_only({"kind", "rate_per_s", "concurrency", "file"});
  const std::string kind = a.at("kind").as_enum({"poisson", "closed_loop", "trace"});
  if (kind == "poisson") {
    out.arrival.kind = serve::ArrivalSpec::Kind::poisson;
    out.arrival.rate_per_s = a.at("rate_per_s").as_positive();
  } else if (kind == "closed_loop") {
    out.arrival.kind = serve::ArrivalSpec::Kind::closed_loop;
    out.arrival.concurrency = static_cast<int>(a.at("concurrency").as_positive_int());
  } else {
    out.arrival.kind = serve::ArrivalSpec::Kind::trace;
    const auto f = a.at("file");
    out.arrival.trace = read_trace(resolve_relative(f.as_string(), source), f);
  }
  if (out.arrival.kind != serve::ArrivalSpec::Kind::trace) {
    out.prompt = read_length(w.at("prompt_tokens"));
    out.output = read_length(w.at("output_tokens"));
  }
  out.prefix_cache_hit = w.double_or("prefix_cache_hit", 0);
  if (!(out.prefix_cache_hit >= 0 && out.prefix_cache_hit < 1))
    w.at("prefix_cache_hit").fail("out of range", "a share in [0, 1)");
  if (auto m = w.find("mtp")) {
    m->allow_only({"draft_tokens", "acceptance"});
    out.mtp_draft_tokens = static_cast<int>(m->at("draft_tokens").as_non_negative_int());
    out.mtp_acceptance = m->at("acceptance").as_non_negative();
    if (out.mtp_acceptance > 1) m->at("acceptance").fail("is above 1", "a probability in [0, 1]");
  }
  out.duration_s = w.at("duration_s").as_positive();
  // The simulated clock counts picoseconds in 64 bits (106 days); arrivals stop early enough to leave the drain room.
  constexpr double kLongestArrivals_s = 1e6;
  if (out.duration_s > kLongestArrivals_s)
    w.at("duration_s").fail(fmt::format("{} s of arrivals is beyond the simulated clock", core::format_count(out.duration_s)),
                            "seconds > 0, at most 1,000,000 (11.6 days)");
  // A Poisson stream is drawn whole before the run (request_stream.hpp). Measured on k3-h200-serving at 40 requests/s,
  // 100 s -> 1,000 s of arrivals (4,117 -> 40,220 requests): 190 B and 8 us per request beyond a fixed 23 MB and
  // 1.7 s, so 10 M requests take about 2 GB and 80 s of arrivals' bookkeeping.
  constexpr double kMostRequests = 1e7;
  const double requests = out.arrival.rate_per_s * out.duration_s;
  if (out.arrival.kind == serve::ArrivalSpec::Kind::poisson && requests > kMostRequests)
    w.at("duration_s").fail(
        fmt::format("{} requests/s for {} is {} requests, over the limit of 10M",
                    core::format_count(out.arrival.rate_per_s), core::format_seconds(out.duration_s),
                    core::format_count(requests)),
        fmt::format("arrival.rate_per_s x duration_s at most 10M: duration_s at most {} at this rate, or "
                    "arrival.rate_per_s at most {} for this duration",
                    core::format_seconds(kMostRequests / out.arrival.rate_per_s),
                    core::format_count(kMostRequests / out.duration_s)));
  out.warmup_s = w.double_or("warmup_s", 0);
  if (!(out.warmup_s >= 0 && out.warmup_s < out.duration_s))
    w.at("warmup_s").fail("must be in [0, duration_s)", "seconds >= 0 and below duration_s");
}

void read_scheduler(const YamlValue& v, serve::SchedulerSpec& s) {
  if (v.has("two_batch_overlap"))
    v.at("two_batch_overlap").fail("is now part of scheduler.overlap", "scheduler.overlap: [two_batch] (or [] for none)");
  v.allow_only({"prefill_token_budget", "max_running_per_rank", "page_tokens", "memory_reserve_fraction", "overlap"});
  if (auto b = v.find("prefill_token_budget")) s.prefill_token_budget = b->as_positive();
  if (auto m = v.find("max_running_per_rank")) s.max_running_per_rank = static_cast<int>(m->as_positive_int());
  if (auto p = v.find("page_tokens")) s.page_tokens = static_cast<int>(p->as_positive_int());
  if (auto r = v.find("memory_reserve_fraction")) {
    s.memory_reserve_fraction = r->as_non_negative();
    if (s.memory_reserve_fraction >= 1) r->fail("must be below 1", "a share in [0, 1)");
  }
  if (auto o = v.find("overlap")) {
    if (!o->is_sequence() && !o->is_null())
      o->fail("must be a list", "a list of " + core::entry_names(serve::overlap_options()) + ", e.g. [two_batch]");
    s.two_batch_overlap = s.combine_with_down_gemm = s.shared_experts_with_dispatch = false;
    for (const auto& item : o->items()) {
      const auto name = item.as_enum(core::entry_name_list(serve::overlap_options()));
      switch (core::find_entry(serve::overlap_options(), name)->overlap) {
        case serve::Overlap::two_batch: s.two_batch_overlap = true; break;
        case serve::Overlap::combine_with_down_gemm: s.combine_with_down_gemm = true; break;
        case serve::Overlap::shared_experts_with_dispatch: s.shared_experts_with_dispatch = true; break;
      }
    }
  }
}

cost::Precision precision_of(const YamlValue& v) {
  const auto name = v.as_enum({"bf16", "fp8", "mxfp8", "nvfp4"});
  for (auto f : {cost::Precision::fp8, cost::Precision::mxfp8, cost::Precision::nvfp4}) {
    if (cost::to_string(f) == name) return f;
  }
  return cost::Precision::bf16;
}

double element_bytes(const YamlValue& v) { return v.as_enum({"fp8", "bf16"}) == "fp8" ? 1.0 : 2.0; }

}  // namespace

ServeScenario parse_serve_scenario(const std::string& yaml_text, const std::string& source_name,
                                   const std::vector<Override>& overrides) {
  auto doc = YamlValue::parse_string(yaml_text, source_name);
  if (!doc.is_map()) doc.fail("a serving scenario must be a YAML mapping", "keys such as model, cluster, deployment, workload");
  apply_overrides(doc, overrides);
  YAML::Node root = doc.node();
  doc.allow_only({"name", "description", "seed", "model", "cluster", "network", "profile", "precision", "deployment",
                  "workload", "scheduler", "slo", "price_per_gpu_hour", "kernel_tables"});
  ServeScenario out;
  auto& s = out.spec;
  auto& b = out.base;
  b.source = s.source = source_name;
  s.name = b.name = doc.string_or("name", std::filesystem::path(source_name).stem().string());
  if (auto seed = doc.find("seed")) s.seed = static_cast<std::uint64_t>(seed->as_non_negative_int());
  b.model = resolve_relative(doc.at("model").as_string(), source_name);
  read_cluster(doc.at("cluster"), b);
  if (auto n = doc.find("network")) {
    s.network = core::find_entry(net::network_models(), n->as_enum(core::entry_name_list(net::network_models())));
  }
  if (auto p = doc.find("profile")) b.profile = resolve_relative(p->as_string(), source_name);
  if (auto k = doc.find("kernel_tables")) s.roofline_kernels = k->as_enum({"measured", "roofline"}) == "roofline";
  if (auto p = doc.find("precision")) {
    p->allow_only({"gemm", "weights", "dispatch", "combine", "kv_cache"});
    if (auto g = p->find("gemm")) {
      // Whether the GPU has MXFP8 or NVFP4 tensor cores is checked with the topology, as for training.
      s.gemm_precision = b.precision.gemm = precision_of(*g);
      b.precision_gemm_line = g->line();
    }
    // Stored weights: a block-scaled format with its scales (NVFP4 0.5 + 1/16 B, MXFP8 1 + 1/32 B per weight).
    if (auto w = p->find("weights")) {
      const auto f = precision_of(*w);
      s.weight_bytes_per_param = f == cost::Precision::bf16  ? 2.0
                                 : f == cost::Precision::fp8 ? 1.0
                                                             : cost::block_scaled_bytes_per_element(f);
    }
    // An FP8 dispatch carries one fp32 scale per 128 elements (DeepEP's low-latency and normal kernels).
    if (auto d = p->find("dispatch")) s.dispatch_bytes_per_element = element_bytes(*d) == 1.0 ? 1.0 + 4.0 / 128 : 2.0;
    if (auto c = p->find("combine")) s.combine_bytes_per_element = element_bytes(*c);
    if (auto k = p->find("kv_cache")) s.kv_cache_bytes_per_element = element_bytes(*k);
  }
  const auto d = doc.at("deployment");
  d.allow_only({"kind", "prefill", "decode", "instance"});
  const std::string kind = d.at("kind").as_enum({"disaggregated", "colocated"});
  auto& dep = s.deployment;
  if (kind == "colocated") {
    dep.kind = serve::DeploymentKind::colocated;
    if (d.has("prefill") || d.has("decode")) d.fail("a colocated deployment has one instance type", "deployment.instance");
    dep.prefill = dep.decode =
        read_instance(d.at("instance"), dep.prefill_instances, out.instance_lines, false, false);
  } else {
    dep.kind = serve::DeploymentKind::disaggregated;
    if (d.has("instance")) d.at("instance").fail("a disaggregated deployment names prefill and decode", "deployment.prefill and deployment.decode");
    dep.prefill = read_instance(d.at("prefill"), dep.prefill_instances, out.instance_lines, false, true);
    dep.decode = read_instance(d.at("decode"), dep.decode_instances, out.instance_lines, true, false);
  }
  read_workload(doc.at("workload"), s.workload, source_name);
  if (auto sc = doc.find("scheduler")) read_scheduler(*sc, s.scheduler);
  if (auto slo = doc.find("slo")) {
    slo->allow_only({"ttft_s", "tpot_s"});
    s.slo.ttft_s = slo->at("ttft_s").as_positive();
    s.slo.tpot_s = slo->at("tpot_s").as_positive();
  }
  if (auto p = doc.find("price_per_gpu_hour")) s.price_per_gpu_hour = p->as_positive();
  YAML::Emitter e;
  e << root;
  out.yaml_text = b.yaml_text = e.c_str();
  return out;
}

bool is_serve_scenario(const std::string& path) {
  const auto doc = YamlValue::parse_string(core::read_text_file(path, "a scenario YAML file (see scenarios/README.md)"), path);
  return doc.is_map() && doc.has("deployment");
}

ServeScenario load_serve_scenario(const std::string& path, const std::vector<Override>& overrides) {
  return parse_serve_scenario(core::read_text_file(path, "a serving scenario YAML file (see scenarios/README.md)"),
                              path, overrides);
}

ServeInputs resolve_serve_scenario(ServeScenario scenario, const std::string& profile_flag) {
  ServeInputs out;
  out.spec = std::move(scenario.spec);
  out.inputs = resolve_scenario(std::move(scenario.base), profile_flag);
  const int gpn = out.inputs.topology->gpus_per_node();
  for (const auto& l : scenario.instance_lines) {
    const auto& is = l.decode ? out.spec.deployment.decode : out.spec.deployment.prefill;
    if (const auto p = serve::instance_shape_problem(is, is.nodes * gpn, gpn,
                                                     static_cast<int>(out.inputs.model.layers.size())))
      throw InputError(p->key == "pp" ? l.pp : p->key == "moe_tp" ? l.moe_tp : l.attention_dp, p->problem, p->allowed);
    const auto& gpu = out.inputs.topology->gpu_type();
    if (is.weight_offload_bytes_per_gpu > 0 && gpu.host_link_bytes_per_s <= 0)
      throw InputError(l.weight_offload, fmt::format("GPU type {} states no host link to stream weights over", gpu.name),
                       "0 here, or a GPU type with host_link_bytes_per_s (topologies/README.md)");
  }
  return out;
}

ServeInputs load_serve_inputs(const std::string& path, const std::vector<std::string>& sets,
                              const std::string& profile_flag) {
  std::vector<Override> overrides;
  for (const auto& s : sets) overrides.push_back(parse_override(s));
  return resolve_serve_scenario(load_serve_scenario(path, overrides), profile_flag);
}

}  // namespace k3::input
