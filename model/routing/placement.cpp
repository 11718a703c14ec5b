#include "model/routing/placement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "core/error.hpp"

namespace k3::routing {

void check_ep_divides_experts(int ep, int experts, const core::InputLocation& where) {
  if (ep < 1 || experts % ep != 0)
    throw core::InputError(where, fmt::format("EP {} does not divide the {} routed experts", ep, experts),
                           "an EP size that divides the number of routed experts");
}

void validate(const PlacementSpec& spec, int experts, const char* source) {
  check_ep_divides_experts(spec.gpus, experts, {source, "ep", 0});
  if (spec.gpus_per_node < 1 || spec.gpus % spec.gpus_per_node != 0)
    throw core::InputError({source, "gpus-per-node", 0},
                           fmt::format("{} GPUs per node do not divide EP {}", spec.gpus_per_node, spec.gpus),
                           "a divisor of the EP size");
  if (spec.redundant_experts < 0 || spec.redundant_experts > experts)
    throw core::InputError({source, "redundant", 0}, fmt::format("{} redundant experts", spec.redundant_experts),
                           fmt::format("0 to {}", experts));
}

PlacementKind parse_placement_kind(const std::string& text, const char* flag) {
  if (text == "contiguous") return PlacementKind::contiguous;
  if (text == "strided") return PlacementKind::strided;
  throw core::InputError({flag, "", 0}, fmt::format("unknown placement '{}'", text), "contiguous, strided");
}

ExpertPlacement::ExpertPlacement(int experts, const PlacementSpec& spec, std::span<const double> expert_load)
    : experts_(experts), gpus_(spec.gpus), gpus_per_node_(spec.gpus_per_node),
      copies_(static_cast<std::size_t>(experts)) {
  validate(spec, experts, "placement");
  const int per_gpu = experts / gpus_;
  for (int j = 0; j < experts; ++j)
    copies_[static_cast<std::size_t>(j)].push_back(spec.kind == PlacementKind::contiguous ? j / per_gpu : j % gpus_);
  if (spec.redundant_experts == 0) return;
  std::vector<double> load(static_cast<std::size_t>(experts), 1.0);
  if (static_cast<int>(expert_load.size()) == experts) load.assign(expert_load.begin(), expert_load.end());
  std::vector<int> order(static_cast<std::size_t>(experts));
  std::iota(order.begin(), order.end(), 0);
  // Hottest first; ties by index keep it deterministic.
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return load[static_cast<std::size_t>(a)] > load[static_cast<std::size_t>(b)];
  });
  for (int r = 0; r < spec.redundant_experts; ++r) {
    const int e = order[static_cast<std::size_t>(r)];
    const auto gl = gpu_load(load);
    int best = -1;
    for (int g = 0; g < gpus_; ++g) {
      const auto& c = copies_[static_cast<std::size_t>(e)];
      if (std::find(c.begin(), c.end(), g) != c.end()) continue;
      if (best < 0 || gl[static_cast<std::size_t>(g)] < gl[static_cast<std::size_t>(best)]) best = g;
    }
    if (best >= 0) copies_[static_cast<std::size_t>(e)].push_back(best);
  }
}

std::vector<int> ExpertPlacement::primary_node_of_expert() const {
  std::vector<int> node(static_cast<std::size_t>(experts_));
  for (int j = 0; j < experts_; ++j) node[static_cast<std::size_t>(j)] = node_of_gpu(copies_[static_cast<std::size_t>(j)].front());
  return node;
}

std::vector<double> ExpertPlacement::gpu_load(std::span<const double> expert_load) const {
  std::vector<double> load(static_cast<std::size_t>(gpus_), 0.0);
  for (int j = 0; j < experts_; ++j) {
    const auto& c = copies_[static_cast<std::size_t>(j)];
    const double share = expert_load[static_cast<std::size_t>(j)] / static_cast<double>(c.size());
    for (int g : c) load[static_cast<std::size_t>(g)] += share;
  }
  return load;
}

}  // namespace k3::routing
