#include "sim/input/scenario.hpp"
#include "sim/input/reliability_block.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <sstream>

#include "core/registry.hpp"
#include "sim/parallel/schedule_registry.hpp"
#include "core/text_file.hpp"

namespace k3::input {

namespace {

using core::InputError;
using core::YamlValue;

template <typename E>
E enum_of(const YamlValue& v, std::initializer_list<std::pair<std::string_view, E>> table) {
  std::vector<std::string> names;
  for (const auto& [n, e] : table) names.emplace_back(n);
  const auto s = v.as_enum(names);
  for (const auto& [n, e] : table) {
    if (n == s) return e;
  }
  return table.begin()->second;  // unreachable: as_enum threw for unknown names
}

// `recompute: none | selective | full`, or a list of modules (`recompute: [norm, moe_act]`).
model::RecomputePolicy recompute_policy(const YamlValue& v) {
  if (!v.is_sequence()) {
    const auto word = v.as_enum({"none", "selective", "full"});
    if (word == "selective") return model::RecomputePolicy::selective();
    return word == "full" ? model::RecomputePolicy::whole_blocks() : model::RecomputePolicy::none();
  }
  const auto& table = model::recompute_modules();
  model::RecomputePolicy p;
  for (const auto& item : v.items()) {
    const auto name = item.as_enum(core::entry_name_list(table));
    p.modules |= core::find_entry(table, name)->bit;
  }
  return p;
}

// `host: {profile: NAME | FILE | none, cuda_graphs: [attention, mlp, ...]}` (after `communication:`, whose
// all-to-all decides whether the dispatch can be captured).
// Without `host.profile`, an ideal host (none). The shipped measured profile is not yet the default: each pass
// is its own simulation, so its host starts level with its GPU instead of having run ahead during the pass
// before, which overcharges pipelines of many short passes until the whole step is one engine run (issue 42).
constexpr std::string_view kDefaultHostProfile = "none";

// Speeds are over the kernel tables' GPU; a GPU that does not run at all is a failure, not a slow GPU.
double read_speed(const YamlValue& item) {
  const auto speed = item.at("speed");
  const double v = speed.as_positive();
  if (v > 2) speed.fail("faster than twice the kernel tables' GPU", "a speed above 0 and at most 2 (1: the tables' GPU)");
  return v;
}

void read_gpu_speed(const YamlValue& g, parallel::GpuSpeedSpec& out) {
  g.allow_only({"spread", "slow", "ranges"});
  if (auto v = g.find("spread")) {
    out.spread = v->as_non_negative();
    if (out.spread >= 1) v->fail("a spread of 1 or more gives GPUs of speed 0", "a fraction from 0 to below 1 (0.08: Sinha et al., SC22)");
  }
  if (auto ranges = g.find("ranges")) {
    if (!ranges->is_sequence()) ranges->fail("expected a list of GPU ranges", "[{first_gpu: 1024, gpus: 1024, speed: 0.6}, ...]");
    for (const auto& item : ranges->items()) {
      item.allow_only({"first_gpu", "gpus", "speed"});
      parallel::SlowGpuRange r;
      r.first = item.at("first_gpu").as_non_negative_int();
      r.count = item.at("gpus").as_positive_int();
      r.speed = read_speed(item);
      r.where = item.at("gpus").where();
      out.ranges.push_back(r);
    }
  }
  auto slow = g.find("slow");
  if (!slow) return;
  if (!slow->is_sequence()) slow->fail("expected a list of GPUs", "[{gpu: 17, speed: 0.8}, ...]");
  for (const auto& item : slow->items()) {
    item.allow_only({"gpu", "speed"});
    parallel::SlowGpu gpu;
    gpu.gpu = item.at("gpu").as_non_negative_int();
    gpu.speed = read_speed(item);
    gpu.where = item.at("gpu").where();
    out.slow.push_back(gpu);
  }
}

void read_host(const std::optional<YamlValue>& h, Scenario& s) {
  std::string profile(kDefaultHostProfile);
  std::optional<YamlValue> given;
  if (h) {
    h->allow_only({"profile", "cuda_graphs"});
    given = h->find("profile");
    if (given) profile = given->as_string();
  }
  if (profile != "none") {
    const std::string shipped = cost::shipped_host_profile(profile);
    s.host.profile = shipped.empty() && given ? resolve_relative(profile, s.source) : shipped;
    if (s.host.profile.empty() || !core::path_exists(s.host.profile)) {
      const std::string allowed = "a shipped profile (" + cost::shipped_host_profile_names() +
                                  "), a file from `k3sim trace import --out`, or none";
      if (given) given->fail("no such host profile", allowed);
      throw core::InputError({s.source, "host.profile", 0}, "the default host profile is not installed", allowed);
    }
    s.host.loaded = cost::HostProfile::shared(s.host.profile);
  }
  if (!h) return;
  auto g = h->find("cuda_graphs");
  if (!g) return;
  if (!g->is_sequence()) g->fail("expected a list of modules", "[attention, mlp, dispatch, combine] or a part of it");
  for (const auto& item : g->items()) {
    const auto name = item.as_enum({"attention", "mlp", "dispatch", "combine"});
    const auto m = name == "attention" ? cost::HostModule::attention
                   : name == "mlp"     ? cost::HostModule::mlp
                   : name == "dispatch" ? cost::HostModule::dispatch
                                        : cost::HostModule::combine;
    // The flat all-to-all and DeepEP's normal kernels size their buffers from counts the host reads back from the
    // device (the combine reuses the dispatch's layout), which a captured graph cannot do; DeepEP's low-latency
    // kernels use fixed buffers and are the ones its README calls CUDA-graph compatible.
    const bool all_to_all = m == cost::HostModule::dispatch || m == cost::HostModule::combine;
    if (all_to_all && s.communication.alltoall != workload::AllToAllAlgorithm::deepep_ll) {
      item.fail("the " + name + " is sized by counts the host reads back from the device (" +
                    workload::to_string(s.communication.alltoall) + " all-to-all), which a CUDA graph cannot capture",
                "dispatch and combine only with communication.alltoall: deepep-ll");
    }
    s.host.cuda_graphs[static_cast<std::size_t>(m)] = true;
  }
}

int positive_int(const YamlValue& map, std::string_view key, int fallback) {
  auto v = map.find(key);
  if (!v) return fallback;
  const auto i = v->as_positive_int();
  if (i > 1'000'000) v->fail("is out of range", "an integer from 1 to 1000000");
  return static_cast<int>(i);
}

// Walks a dotted key, creating mappings, and sets the leaf to the value parsed as YAML.
}  // namespace

void apply_override(YAML::Node root, const Override& o) {
  std::vector<std::string> parts;
  std::stringstream ss(o.key);
  for (std::string part; std::getline(ss, part, '.');) parts.push_back(part);
  YAML::Node node = root;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node next = node[parts[i]];
    if (next.IsDefined() && !next.IsMap() && !next.IsNull()) {
      throw InputError({"--set", o.key, 0}, "'" + parts[i] + "' is not a mapping, cannot set a key inside it");
    }
    if (!next.IsDefined() || next.IsNull()) node[parts[i]] = YAML::Node(YAML::NodeType::Map);
    node.reset(node[parts[i]]);
  }
  YAML::Node value;
  try {
    value = YAML::Load(o.value);
  } catch (const YAML::Exception& e) {
    throw InputError({"--set", o.key, 0}, "value is not valid YAML: " + e.msg);
  }
  node[parts.back()] = value;
}

void apply_overrides(YamlValue& doc, const std::vector<Override>& overrides) {
  std::vector<std::string> set_keys;
  for (const auto& o : overrides) {
    apply_override(doc.node(), o);
    set_keys.push_back(o.key);
  }
  doc.mark_set_by_override(std::move(set_keys));
}

std::string resolve_relative(const std::string& ref, const std::string& scenario_path) {
  const bool looks_like_path = ref.find('/') != std::string::npos || ref.ends_with(".yaml") ||
                               ref.ends_with(".yml") || ref.ends_with(".json");
  if (!looks_like_path || std::filesystem::path(ref).is_absolute()) return ref;
  const auto dir = std::filesystem::path(scenario_path).parent_path();
  const auto candidate = dir / ref;
  if (core::path_exists(candidate)) return candidate.lexically_normal().string();
  return ref;
}

namespace {

void read_parallel(const YamlValue& v, parallel::ParallelLayout& p) {
  v.allow_only({"tp", "pp", "vpp", "ep", "etp", "cp", "cp_comm", "dp", "zero", "fsdp", "fsdp_regather", "fsdp_offload",
                "sequence_parallel",
                "pipeline_layout", "schedule", "ep_spread", "overlap_grad_reduce", "a2a_overlap"});
  p.tp = positive_int(v, "tp", 1);
  p.pp = positive_int(v, "pp", 1);
  p.vpp = positive_int(v, "vpp", 1);
  p.ep = positive_int(v, "ep", 1);
  // Experts follow the dense layers' TP when there is no EP (the experts are then split like any MLP);
  // with EP the experts stay whole (ETP 1), as Megatron-Core's MoE recipes run them.
  p.etp = positive_int(v, "etp", p.ep == 1 ? p.tp : 1);
  p.cp = positive_int(v, "cp", 1);
  if (auto c = v.find("cp_comm")) {
    p.cp_comm = c->as_enum({"p2p", "a2a"}) == "a2a" ? parallel::ContextParallelComm::a2a : parallel::ContextParallelComm::p2p;
  }
  // Megatron-Core requires sequence parallelism with TP and EP together, so that is the default there.
  p.sequence_parallel = v.bool_or("sequence_parallel", p.tp > 1 && p.ep > 1);
  if (auto dp = v.find("dp")) {
    if (dp->is_scalar() && dp->as_string() == "auto") {
      p.dp = 0;
    } else {
      p.dp = positive_int(v, "dp", 0);
    }
  }
  if (auto z = v.find("zero")) {
    const auto s = z->as_non_negative_int();
    if (s > 3) z->fail("ZeRO stage out of range", "0, 1, 2 or 3");
    p.zero_stage = static_cast<int>(s);
  }
  if (auto l = v.find("pipeline_layout")) p.pipeline_layout = l->as_string();
  p.fsdp = v.bool_or("fsdp", false);
  if (p.fsdp) {
    if (auto z = v.find("zero"); z && p.zero_stage != 3) z->fail("FSDP shards weights, gradients and optimizer state", "zero: 3 or no zero key with fsdp: true");
    p.zero_stage = 3;
  }
  // When FSDP gathers parameters: before each forward and backward (FSDP2's default), once per micro-batch
  // (reshard_after_forward=False), or once per step (parameters and gradients whole through the step, gradients
  // reduce-scattered and parameters gathered once around the optimizer: ZeRO-1's collectives and memory, which
  // k3sim then runs and names).
  if (auto r = v.find("fsdp_regather")) {
    const auto when = r->as_enum({"forward_and_backward", "micro_batch", "step"});
    if (!p.fsdp) r->fail("only FSDP re-gathers parameters", "fsdp: true with it, or no fsdp_regather");
    p.fsdp_regather_in_backward = when == "forward_and_backward";
    if (when == "step") {
      p.fsdp = false;
      p.zero_stage = 1;
    }
  }
  // FSDP's CPU offload (PyTorch FSDP's CPUOffloadPolicy / offload_params): each rank's shards of parameters,
  // gradients and optimizer state live in host memory and the optimizer steps on the CPU.
  if (auto o = v.find("fsdp_offload"); o && o->as_bool()) {
    if (!p.fsdp) o->fail("only FSDP offloads its shards to host memory", "fsdp: true (re-gathering in a pass) with it");
    p.fsdp_offload = true;
  }
  if (auto s = v.find("schedule")) {
    p.schedule = core::find_entry(parallel::pipeline_schedules(),
                                  s->as_enum(core::entry_name_list(parallel::pipeline_schedules())));
  }
  p.ep_spread = v.bool_or("ep_spread", false);
  p.overlap_grad_reduce = v.bool_or("overlap_grad_reduce", true);
  p.a2a_overlap = v.bool_or("a2a_overlap", false);
  if (p.a2a_overlap) {
    const std::string_view name = p.schedule->name;
    if (name != "1f1b" && name != "interleaved") {
      v.at("a2a_overlap").fail("the all-to-all overlap merges 1F1B's steady-state passes; " + std::string(name) +
                                   " has no such steady state (DualPipe's F&B passes overlap already)",
                               "a2a_overlap: true with schedule: 1f1b or interleaved");
    }
    if (p.ep <= 1) v.at("a2a_overlap").fail("the all-to-all overlap overlaps expert-parallel all-to-alls", "ep > 1");
  }
  if (p.vpp > 1 && !p.schedule->virtual_stages) {
    std::string with_stages;
    for (const auto* e : parallel::pipeline_schedules()) {
      if (e->virtual_stages) with_stages += (with_stages.empty() ? "" : " or ") + std::string(e->name);
    }
    v.at("vpp").fail("virtual stages need the " + with_stages + " schedule", "vpp: 1, or schedule: " + with_stages);
  }
}

void read_batch(const YamlValue& v, parallel::BatchSpec& b) {
  v.allow_only({"seq_len", "global_batch_seqs", "global_batch_tokens", "micro_batch_seqs", "gradient_accumulation_steps"});
  b.seq_len = v.at("seq_len").as_positive_int();
  if (auto g = v.find("gradient_accumulation_steps")) b.gradient_accumulation_steps = g->as_positive_int();
  b.micro_batch_seqs = v.has("micro_batch_seqs") ? v.at("micro_batch_seqs").as_positive_int() : 1;
  if (v.has("global_batch_seqs") == v.has("global_batch_tokens")) {
    v.fail("give exactly one of global_batch_seqs and global_batch_tokens",
           "global_batch_seqs: N or global_batch_tokens: N");
  }
  if (auto s = v.find("global_batch_seqs")) {
    b.global_batch_seqs = s->as_positive_int();
  } else {
    const auto t = v.at("global_batch_tokens");
    const auto tokens = t.as_positive_int();
    if (tokens % b.seq_len != 0) t.fail("is not a whole number of sequences of seq_len tokens",
                                        "a multiple of batch.seq_len");
    b.global_batch_seqs = tokens / b.seq_len;
  }
}

// The YAML text of a value, to hand to the topology loader as an override ("128", "fat_tree3", "[1, 2]").
std::string yaml_text(const YamlValue& v) {
  YAML::Emitter out;
  out << YAML::Flow << v.node();
  return out.c_str();
}

}  // namespace

// `cluster:`: each change is kept as an override of the topology file (Scenario::cluster_sets), so that the
// topology loader checks it like the file's own keys.
void read_cluster(const YamlValue& c, Scenario& s) {
  c.allow_only({"topology", "nodes", "gpus", "gpus_per_node", "radix", "fabric"});
  s.topology = resolve_relative(c.at("topology").as_string(), s.source);
  const auto set = [&s](const YamlValue& v, std::string topology_key) {
    s.cluster_sets.push_back({std::move(topology_key), yaml_text(v), v.key_path(), v.line()});
  };
  if (auto n = c.find("nodes")) {
    s.nodes = n->as_positive_int();
    set(*n, "nodes");
  }
  for (const char* key : {"gpus", "gpus_per_node"}) {
    if (auto g = c.find(key)) {
      g->as_positive_int();
      set(*g, key);
    }
  }
  if (auto r = c.find("radix")) {  // the older spelling of fabric.radix
    s.radix = r->as_positive_int();
    set(*r, "fabric.radix");
  }
  if (auto f = c.find("fabric")) {
    f->allow_only({"kind", "radix", "tiers", "oversubscription", "link_bytes_per_s", "link_latency_s"});
    if (s.radix && f->has("radix")) f->at("radix").fail("cluster.radix is given too", "one of cluster.radix and cluster.fabric.radix");
    for (const auto& [key, v] : f->entries()) set(v, "fabric." + key);
  }
}

namespace {

workload::ElementType element_type(const YamlValue& v) {
  return enum_of<workload::ElementType>(v, {{"fp8", workload::ElementType::fp8}, {"bf16", workload::ElementType::bf16}});
}

}  // namespace

Override parse_override(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw InputError({"--set", text, 0}, "expected key=value", "a dotted key and a value, e.g. parallel.ep=32");
  }
  return Override{text.substr(0, eq), text.substr(eq + 1)};
}

Scenario parse_scenario(const std::string& yaml_text, const std::string& source_name,
                        const std::vector<Override>& overrides, bool keep_text) {
  auto doc = YamlValue::parse_string(yaml_text, source_name);
  if (!doc.is_map()) doc.fail("a scenario must be a YAML mapping", "keys such as model, cluster, parallel, batch");
  apply_overrides(doc, overrides);
  YAML::Node root = doc.node();

  Scenario s;
  s.source = source_name;
  doc.allow_only({"name", "seed", "model", "cluster", "parallel", "batch", "precision", "communication",
                  "expert_load", "recompute", "optimizer", "network", "network_scope", "profile", "price_per_gpu_hour",
                  "variants", "description", "attention_kernel", "fp8_gemm_kernels", "bf16_gemm_kernels",
                  "kernel_tables", "host", "gpu_speed", "reliability"});
  s.name = doc.string_or("name", std::filesystem::path(source_name).stem().string());
  if (auto seed = doc.find("seed")) s.seed = static_cast<std::uint64_t>(seed->as_non_negative_int());
  s.model = resolve_relative(doc.at("model").as_string(), source_name);

  read_cluster(doc.at("cluster"), s);

  if (auto p = doc.find("parallel")) {
    read_parallel(*p, s.parallel);
    if (auto o = p->find("fsdp_offload")) s.fsdp_offload_line = o->line();
  }
  read_batch(doc.at("batch"), s.batch);

  if (auto p = doc.find("precision")) {
    p->allow_only({"gemm", "dispatch", "combine", "gradient_reduce"});
    if (auto g = p->find("gradient_reduce")) {
      s.precision.gradient_reduce_bytes = g->as_enum({"fp32", "bf16", "fp16"}) == "fp32" ? 4.0 : 2.0;
    }
    if (auto g = p->find("gemm")) {
      // Whether the GPU has MXFP8 or NVFP4 is checked once the topology is known (scenario_inputs.cpp).
      s.precision.gemm = enum_of<workload::GemmPrecision>(*g, {{"bf16", workload::GemmPrecision::bf16},
                                                               {"fp8", workload::GemmPrecision::fp8},
                                                               {"mxfp8", workload::GemmPrecision::mxfp8},
                                                               {"nvfp4", workload::GemmPrecision::nvfp4}});
      s.precision_gemm_line = g->line();
    }
    if (auto d = p->find("dispatch")) s.precision.dispatch = element_type(*d);
    if (auto c = p->find("combine")) s.precision.combine = element_type(*c);
  }
  if (auto c = doc.find("communication")) {
    c->allow_only({"alltoall", "comm_sms", "node_limit", "pipeline_p2p"});
    if (auto p = c->find("pipeline_p2p")) {
      s.communication.blocking_pipeline_p2p = p->as_enum({"overlapped", "blocking"}) == "blocking";
    }
    if (auto a = c->find("alltoall")) {
      s.communication.alltoall =
          enum_of<workload::AllToAllAlgorithm>(*a, {{"flat", workload::AllToAllAlgorithm::flat},
                                                   {"deepep", workload::AllToAllAlgorithm::deepep},
                                                   {"deepep-ll", workload::AllToAllAlgorithm::deepep_ll}});
    }
    s.communication.comm_sms = static_cast<int>(c->int_or("comm_sms", 0));
    if (s.communication.comm_sms < 0) c->at("comm_sms").fail("must not be negative", "an integer >= 0");
    s.communication.node_limit = static_cast<int>(c->int_or("node_limit", 0));
    if (s.communication.node_limit < 0) c->at("node_limit").fail("must not be negative", "0 (off) or >= 1");
  }
  if (auto e = doc.find("expert_load")) {
    e->allow_only({"kind", "balancer", "steps", "bins", "tokens_per_rank", "state"});
    if (auto k = e->find("kind")) {
      s.expert_load.kind = enum_of<workload::ExpertLoadKind>(*k, {{"uniform", workload::ExpertLoadKind::uniform},
                                                         {"balancer", workload::ExpertLoadKind::balancer},
                                                         {"state", workload::ExpertLoadKind::state}});
    }
    if (auto f = e->find("state")) {  // read only with kind: state, so `--set expert_load.kind=...` can switch
      s.expert_load.state = resolve_relative(f->as_string(), source_name);
      s.expert_load.state_at = f->where();
    } else if (s.expert_load.kind == workload::ExpertLoadKind::state) {
      e->at("kind").fail("kind: state needs expert_load.state", "a balancer state file from `k3sim balance --write-state`");
    }
    if (auto b = e->find("balancer")) {
      s.expert_load.balancer = b->as_enum({"none", "sign", "qb-exact", "qb-hist", "qb-local"});
    }
    s.expert_load.steps = positive_int(*e, "steps", s.expert_load.steps);
    s.expert_load.bins = positive_int(*e, "bins", s.expert_load.bins);
    s.expert_load.tokens_per_rank = positive_int(*e, "tokens_per_rank", s.expert_load.tokens_per_rank);
    if (s.expert_load.bins < 2) e->at("bins").fail("needs at least 2 bins", "an integer >= 2");
  }
  read_host(doc.find("host"), s);
  if (auto r = doc.find("recompute")) s.recompute = recompute_policy(*r);
  if (auto o = doc.find("optimizer")) {
    o->allow_only({"kind", "newton_schulz_iterations", "moment_dtype", "per_head_attention", "offload_fraction"});
    if (auto f = o->find("offload_fraction")) {
      if (s.parallel.fsdp_offload)
        f->fail("parallel.fsdp_offload keeps all of each rank's optimizer state in host memory",
                "no optimizer.offload_fraction with parallel.fsdp_offload");
      s.optimizer.offload_fraction = f->as_non_negative();
      if (s.optimizer.offload_fraction > 1) f->fail("is above 1", "a share in [0, 1]");
      s.optimizer_offload_line = f->line();
    }
    if (auto h = o->find("per_head_attention")) s.optimizer.per_head_attention = h->as_bool();
    if (auto m = o->find("moment_dtype")) s.optimizer.moment_bytes = m->as_enum({"fp32", "bf16"}) == "bf16" ? 2 : 4;
    if (auto k = o->find("kind")) {
      s.optimizer.kind =
          enum_of<model::Optimizer>(*k, {{"adamw", model::Optimizer::AdamW}, {"muon", model::Optimizer::Muon}});
    }
    s.optimizer.newton_schulz_iterations = positive_int(*o, "newton_schulz_iterations", 5);
  }
  // FSDP's offload steps the optimizer on the CPU for the whole of each rank's shard.
  if (s.parallel.fsdp_offload) s.optimizer.offload_fraction = 1;
  if (auto n = doc.find("network")) {
    s.network = core::find_entry(net::network_models(), n->as_enum(core::entry_name_list(net::network_models())));
  }
  if (auto n = doc.find("network_scope")) {
    s.network_scope = enum_of<train::NetworkScope>(*n, {{"auto", train::NetworkScope::automatic},
                                                        {"block", train::NetworkScope::block},
                                                        {"fabric", train::NetworkScope::fabric}});
  }
  if (auto a = doc.find("attention_kernel")) {
    s.attention_kernel = enum_of<cost::AttentionKernel>(*a, {{"flash", cost::AttentionKernel::flash},
                                                             {"unfused", cost::AttentionKernel::unfused},
                                                             {"fp8", cost::AttentionKernel::flash_fp8}});
  }
  if (auto k = doc.find("kernel_tables")) s.roofline_kernels = k->as_enum({"measured", "roofline"}) == "roofline";
  if (auto k = doc.find("bf16_gemm_kernels")) {
    s.bf16_gemm_cuda11 = k->as_enum({"cuda12", "cuda11"}) == "cuda11";
    s.bf16_gemm_kernels_line = k->line();
  }
  if (auto k = doc.find("fp8_gemm_kernels")) {
    s.fp8_gemm_kernels = k->as_enum({"deepgemm", "cutlass-3.6"}) == "cutlass-3.6" ? cost::Fp8GemmKernels::cutlass_3_6
                                                                                 : cost::Fp8GemmKernels::deepgemm;
  }
  if (auto p = doc.find("profile")) s.profile = resolve_relative(p->as_string(), source_name);
  if (auto p = doc.find("price_per_gpu_hour")) s.price_per_gpu_hour = p->as_positive();
  if (auto g = doc.find("gpu_speed")) read_gpu_speed(*g, s.gpu_speed);
  if (auto r = doc.find("reliability")) s.reliability = read_reliability(*r);

  if (keep_text) {
    YAML::Emitter out;
    out << root;
    s.yaml_text = out.c_str();
  }
  return s;
}

Scenario load_scenario(const std::string& path, const std::vector<Override>& overrides) {
  return parse_scenario(core::read_text_file(path, "a scenario YAML file (see scenarios/README.md)"), path,
                        overrides);
}

}  // namespace k3::input
