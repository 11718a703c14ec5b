#pragma once
// Which band inputs move together (issue 44). The numbers a step reads are not independent: the kernel
// efficiencies and kernel-level ratios all come from one framework release with its kernel libraries (cuBLAS,
// FlashAttention, DeepGEMM, Triton kernels), and the link efficiencies, latencies and communication-kernel
// figures from one communication stack (NCCL, DeepEP and their tuning). A stack that is slower than measured is
// slower for all of its kernels at once, so the band draws each stack as one factor: every member of a stack
// takes the same quantile of its own range in a sample (the comonotone copula: rank correlation 1), flipped for
// members where a larger value means a slower step. That it is the full correlation, and not a partial one, is
// an assumption: no measurement of how the members of a stack co-vary across releases was found.
#include <optional>
#include <string_view>

namespace k3::train {

struct StackMembership {
  std::string_view stack;  // "kernel stack", "communication stack"
  bool faster_when_larger; // efficiencies and rates: true; latencies, time floors and slowdowns: false
};

// The stack an entry id belongs to; nullopt for a number that moves alone (a datasheet figure, an assumption
// about the model or the cluster rather than the software).
std::optional<StackMembership> stack_of(std::string_view id);

}  // namespace k3::train
