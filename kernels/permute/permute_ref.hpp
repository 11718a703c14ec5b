#pragma once
// Token dispatch layout: counts per expert, exclusive prefix sums, and a stable scatter (copies of lower
// tokens first, then lower slots) so that the layout is deterministic; permute gathers token rows into that
// order and unpermute combines expert outputs back with the gates.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/common/bf16.hpp"
#include "kernels/common/tolerance.hpp"

namespace k3::kernels {

struct DispatchLayout {
  std::vector<std::int32_t> counts;        // [experts]
  std::vector<std::int32_t> offsets;       // [experts], exclusive prefix sum of counts
  std::vector<std::int32_t> position;      // [tokens * k]: destination row of copy (t, slot)
  std::vector<std::int32_t> source_token;  // [tokens * k]: token of each destination row
};

DispatchLayout dispatch_layout_ref(std::span<const std::int32_t> expert, std::size_t tokens, std::size_t top_k,
                                   std::size_t experts);

// out[position[p]] = x[p / k] for every copy p. Exact (a copy).
void permute_ref(std::span<const Bf16> x, const DispatchLayout& layout, std::size_t top_k, std::size_t width,
                 std::span<Bf16> out);

// out[t] = sum over slots s of gate[t, s] * y[position[t * k + s]] (float accumulation in slot order).
void unpermute_ref(std::span<const Bf16> y, const DispatchLayout& layout, std::span<const float> gate,
                   std::size_t tokens, std::size_t top_k, std::size_t width, std::span<float> out);

// Unpermute outputs BF16 from a float sum of k products: 2^-7 relative to the sum of |terms|.
inline constexpr Tolerance kUnpermuteTolerance{1e-6, 0x1.0p-7};

// Permute reads a token row once per copy and writes it: 2 * 2 bytes per element per copy.
inline double permute_bytes(std::size_t tokens, std::size_t top_k, std::size_t width) {
  return 4.0 * static_cast<double>(tokens * top_k * width);
}

}  // namespace k3::kernels
