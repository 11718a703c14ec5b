#pragma once
// Expert placement over an expert-parallel group of G GPUs (gpus_per_node per node): which GPU(s) host each
// expert. Contiguous puts experts [g n/G, (g+1) n/G) on GPU g; strided puts expert j on GPU j mod G.
// Redundant copies (as DeepSeek-V3's EPLB does) add one extra copy of each of the R hottest experts on the
// GPU that is least loaded at that point (never one already hosting it); a token uses copy (token mod copies).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace k3::routing {

enum class PlacementKind { contiguous, strided };

struct PlacementSpec {
  PlacementKind kind = PlacementKind::contiguous;
  int gpus = 0;           // EP group size G
  int gpus_per_node = 8;
  int redundant_experts = 0;  // R hottest experts get one extra copy
};

// Throws InputError when G does not divide n, gpus_per_node does not divide G, or R > n.
// The one rule of expert parallelism that every layout check shares: each of the `ep` ranks of an EP group
// holds the same number of routed experts. InputError at `where` otherwise.
void check_ep_divides_experts(int ep, int experts, const core::InputLocation& where);
void validate(const PlacementSpec& spec, int experts, const char* source);
PlacementKind parse_placement_kind(const std::string& text, const char* flag);

class ExpertPlacement {
 public:
  // `expert_load` (size n, may be empty) ranks experts for redundant copies and balances where they go.
  ExpertPlacement(int experts, const PlacementSpec& spec, std::span<const double> expert_load = {});

  int experts() const { return experts_; }
  int gpus() const { return gpus_; }
  int gpus_per_node() const { return gpus_per_node_; }
  int nodes() const { return gpus_ / gpus_per_node_; }
  int node_of_gpu(int gpu) const { return gpu / gpus_per_node_; }
  const std::vector<int>& copies(int expert) const { return copies_[static_cast<std::size_t>(expert)]; }
  // The GPU serving `expert` for token number `token` (spreads a replicated expert's tokens over its copies).
  int gpu_for(int expert, std::int64_t token) const {
    const auto& c = copies_[static_cast<std::size_t>(expert)];
    return c[static_cast<std::size_t>(token % static_cast<std::int64_t>(c.size()))];
  }
  // The node of each expert's primary copy (what node-limited routing ranks).
  std::vector<int> primary_node_of_expert() const;
  // Tokens each GPU processes given tokens per expert, copies sharing their expert's tokens evenly.
  std::vector<double> gpu_load(std::span<const double> expert_load) const;

 private:
  int experts_, gpus_, gpus_per_node_;
  std::vector<std::vector<int>> copies_;
};

}  // namespace k3::routing
