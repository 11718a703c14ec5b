#pragma once
// What a serving iteration may overlap (scenario key `scheduler.overlap`, a list; `k3sim list overlaps`), by
// name with a one-line description. Each is simulated on one GPU's compute and communication streams
// (two_batch_overlap.hpp), not assumed.
#include <span>
#include <string_view>

namespace k3::serve {

enum class Overlap { two_batch, combine_with_down_gemm, shared_experts_with_dispatch };

struct OverlapEntry {
  std::string_view name;
  std::string_view description;
  Overlap overlap;
};
std::span<const OverlapEntry> overlap_options();

}  // namespace k3::serve
