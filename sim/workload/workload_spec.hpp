#pragma once
// What shapes the per-pass work beyond the model (scenario keys `precision.*`, `communication.*` and
// `expert_load.*`): element types on the wire, the all-to-all algorithm, how expert load is sampled.
#include <array>
#include <memory>
#include <string>

#include "core/yaml_input.hpp"
#include "sim/cost/host_profile.hpp"
#include "sim/cost/precision.hpp"

namespace k3::workload {

enum class AllToAllAlgorithm { flat, deepep, deepep_ll };
// precision.gemm: bf16, fp8, mxfp8 or nvfp4; the cost model's own enum, so that a step passes it on unchanged.
using GemmPrecision = cost::Precision;
enum class ElementType { fp8, bf16 };
enum class ExpertLoadKind { uniform, balancer, state };

struct PrecisionSpec {
  GemmPrecision gemm = GemmPrecision::bf16;
  ElementType dispatch = ElementType::bf16;
  ElementType combine = ElementType::bf16;
  double gradient_reduce_bytes = 4;  // precision.gradient_reduce: fp32 (4), or bf16 / fp16 (2)
};

struct CommunicationSpec {
  AllToAllAlgorithm alltoall = AllToAllAlgorithm::flat;
  bool blocking_pipeline_p2p = false;  // communication.pipeline_p2p: blocking (the sender waits) or overlapped
  int comm_sms = 0;      // SMs a communication kernel holds while it runs (DeepEP: 20 on H800)
  int node_limit = 0;    // 0: no node-limited routing
};

struct ExpertLoadSpec {
  ExpertLoadKind kind = ExpertLoadKind::uniform;
  std::string balancer = "qb-hist";
  int steps = 20;
  int bins = 1000;
  int tokens_per_rank = 8192;   // kind balancer: tokens per rank per step of the inline balancer (8 ranks)
  std::string state;            // kind state: a `k3sim balance --write-state` file, resolved against the scenario
  core::InputLocation state_at;  // where `expert_load.state` was given, for errors found when it is read
};

// Scenario key `host:`: the host (CPU) time of each module, from a profile `k3sim trace import` wrote, and the
// modules replayed as captured CUDA graphs. No profile: the host is never behind the GPU (an ideal host).
struct HostSpec {
  std::string profile;  // the profile's file; empty: none
  std::shared_ptr<const cost::HostProfile> loaded;  // read when the scenario is (null: none)
  std::array<bool, cost::kHostModuleCount> cuda_graphs{};  // by cost::HostModule
};

std::string to_string(AllToAllAlgorithm a);

}  // namespace k3::workload
