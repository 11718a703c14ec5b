#include "sim/train/stack_factors.hpp"

namespace k3::train {

namespace {

constexpr std::string_view kKernels = "kernel stack";
constexpr std::string_view kComm = "communication stack";

bool starts(std::string_view id, std::string_view prefix) { return id.substr(0, prefix.size()) == prefix; }
bool ends(std::string_view id, std::string_view suffix) {
  return id.size() >= suffix.size() && id.substr(id.size() - suffix.size()) == suffix;
}

}  // namespace

std::optional<StackMembership> stack_of(std::string_view id) {
  // Kernel libraries: the compute and memory efficiencies and the measured kernel-level ratios.
  if (starts(id, "gemm.") || starts(id, "attention.fwd.") || starts(id, "attention.bwd.") || starts(id, "kda.") ||
      id == "hbm.efficiency") {
    return StackMembership{kKernels, true};
  }
  if (id == "attention.bwd_over_fwd_scale" || id == "kernel.min_time") return StackMembership{kKernels, false};
  // Communication libraries: what the links carry of their line rate, their per-hop latency, the SM-driven
  // copies of DeepEP and how much compute slows beside a communication kernel.
  if (starts(id, "link.") && ends(id, ".efficiency")) return StackMembership{kComm, true};
  if (starts(id, "link.") && ends(id, ".latency")) return StackMembership{kComm, false};
  if (starts(id, "alltoall.") && ends(id, "_fraction")) return StackMembership{kComm, true};
  if (id == "compute.comm_sm_slowdown") return StackMembership{kComm, false};
  return std::nullopt;
}

}  // namespace k3::train
