#pragma once
// Host-side BF16: storage as the upper 16 bits of an IEEE float, rounded to nearest even (what
// __float2bfloat16_rn does on the GPU), so host references see exactly the values the kernels see.
#include <bit>
#include <cmath>
#include <cstdint>

namespace k3::kernels {

using Bf16 = std::uint16_t;

inline Bf16 to_bf16(float f) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  if (std::isnan(f)) return static_cast<Bf16>((u >> 16) | 0x40u);  // keep NaN a NaN
  const std::uint32_t rounding = 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<Bf16>((u + rounding) >> 16);
}

inline float from_bf16(Bf16 h) { return std::bit_cast<float>(static_cast<std::uint32_t>(h) << 16); }

inline float round_bf16(float f) { return from_bf16(to_bf16(f)); }

// The BF16 value as a double, for references that accumulate in double.
inline double bf16_to_double(Bf16 h) { return static_cast<double>(from_bf16(h)); }

}  // namespace k3::kernels
