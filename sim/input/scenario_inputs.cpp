#include "sim/input/scenario_inputs.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "sim/cost/precision.hpp"
#include "sim/input/size_limits.hpp"
#include "topologies/load.hpp"

namespace k3::input {

namespace {

// The topology overrides of the scenario's `cluster:` block (and of a Scenario filled in by hand, which sets only
// nodes and radix).
std::vector<std::string> topology_overrides(const Scenario& s) {
  std::vector<std::string> out;
  const auto has = [&s](const char* key) {
    for (const auto& c : s.cluster_sets) {
      if (c.topology_key == key) return true;
    }
    return false;
  };
  if (s.nodes && !has("nodes")) out.push_back("nodes=" + std::to_string(*s.nodes));
  if (s.radix && !has("fabric.radix")) out.push_back("fabric.radix=" + std::to_string(*s.radix));
  for (const auto& c : s.cluster_sets) out.push_back(c.topology_key + "=" + c.value);
  return out;
}

// An error in the topology that a key of the scenario's `cluster:` block caused names that key, its line and the
// scenario: the key itself when the error is at it; cluster.nodes or cluster.gpus when the fabric cannot hold
// the cluster they asked for. Other errors (in the topology file as written) stay as they are.
[[noreturn]] void rethrow_for_scenario(const core::InputError& e, const Scenario& s) {
  const auto& key = e.where().key;
  const Scenario::ClusterSet* cause = nullptr;
  for (const auto& c : s.cluster_sets) {
    if (c.topology_key == key) cause = &c;
  }
  const bool fabric_too_small = key == "fabric.radix" || key == "fabric.tiers" || key == "fabric.kind";
  for (const auto& c : s.cluster_sets) {
    if (cause == nullptr && fabric_too_small && (c.topology_key == "nodes" || c.topology_key == "gpus")) cause = &c;
  }
  if (cause == nullptr) throw e;
  throw core::InputError({s.source, cause->scenario_key, cause->line},
                         e.problem() + " (topology " + e.where().file + ")", e.allowed());
}

// precision.gemm mxfp8 or nvfp4 needs tensor cores for it; say which GPU types have them.
void check_gemm_precision(const Scenario& s, const topo::GpuType& gpu) {
  const auto p = s.precision.gemm;
  if (!cost::block_scaled(p)) return;
  const auto peak = [p](const topo::GpuType& g) {
    return p == cost::Precision::mxfp8 ? g.mxfp8_flops_per_s : g.nvfp4_flops_per_s;
  };
  if (peak(gpu) > 0) return;
  std::vector<std::string> with;
  for (const auto& [name, g] : topo::builtin_gpu_types()) {
    if (peak(g) > 0) with.push_back(name);
  }
  throw core::InputError({s.source, "precision.gemm", s.precision_gemm_line},
                         fmt::format("{} needs {} tensor cores; the cluster's {} has none", cost::to_string(p),
                                     cost::display_name(p), gpu.name),
                         "bf16 or fp8 on this GPU, or a cluster of " + core::join_allowed(with));
}

// An optimizer step on the CPU needs the host's link and DRAM bandwidth, and runs AdamW only (Megatron-Core's
// HybridDeviceOptimizer wraps torch's Adam).
void check_optimizer_offload(const Scenario& s, const topo::GpuType& gpu) {
  if (s.optimizer.offload_fraction <= 0) return;
  const core::InputLocation at = s.parallel.fsdp_offload
                                     ? core::InputLocation{s.source, "parallel.fsdp_offload", s.fsdp_offload_line}
                                     : core::InputLocation{s.source, "optimizer.offload_fraction", s.optimizer_offload_line};
  if (s.optimizer.kind != model::Optimizer::AdamW)
    throw core::InputError(at, "the CPU runs AdamW only (Megatron-Core's HybridDeviceOptimizer)",
                           "no offload with optimizer.kind muon, or optimizer.kind adamw");
  if (gpu.host_link_bytes_per_s <= 0 || gpu.host_memory_bytes_per_s <= 0) {
    std::vector<std::string> with;
    for (const auto& [name, g] : topo::builtin_gpu_types()) {
      if (g.host_link_bytes_per_s > 0 && g.host_memory_bytes_per_s > 0) with.push_back(name);
    }
    throw core::InputError(at,
                           fmt::format("GPU type {} states no host link or host DRAM bandwidth to run the update on",
                                       gpu.name),
                           "no offload on this GPU, or a cluster of " + core::join_allowed(with));
  }
}

}  // namespace

ScenarioInputs resolve_scenario(input::Scenario scenario, const std::string& profile_flag, bool profile_any_device) {
  ScenarioInputs in;
  in.model = model::load_model(scenario.model);
  // Refuse a cluster too large to simulate before building its topology (that alone takes gigabytes).
  const auto cluster = [&scenario] {
    try {
      return topo::load_cluster_spec(scenario.topology, topology_overrides(scenario));
    } catch (const core::InputError& e) {
      rethrow_for_scenario(e, scenario);
    }
  }();
  check_gemm_precision(scenario, cluster.gpu);
  check_optimizer_offload(scenario, cluster.gpu);
  input::check_size_limits(scenario, static_cast<std::int64_t>(cluster.nodes) * cluster.node.gpus);
  in.topology = std::make_shared<const topo::Topology>(topo::build_cluster(cluster));
  const std::string profile = profile_flag.empty() ? scenario.profile : profile_flag;
  if (!profile.empty()) {
    in.profile = cost::CalibrationProfile::load(profile);
    if (!profile_any_device) cost::check_profile_device(*in.profile, in.topology->gpu_type().name, profile);
  }
  in.scenario = std::move(scenario);
  return in;
}

ScenarioInputs load_scenario_inputs(const std::string& path, const std::vector<std::string>& sets,
                                    const std::string& profile_flag, bool profile_any_device) {
  std::vector<input::Override> overrides;
  for (const auto& s : sets) overrides.push_back(input::parse_override(s));
  return resolve_scenario(input::load_scenario(path, overrides), profile_flag, profile_any_device);
}

}  // namespace k3::input
