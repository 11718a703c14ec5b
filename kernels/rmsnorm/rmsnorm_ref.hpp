#pragma once
// RMSNorm over rows: y = x / sqrt(mean(x^2) + eps) * weight (the latent-width norm before the up-projection).
#include <cstddef>
#include <span>

#include "kernels/common/bf16.hpp"
#include "kernels/common/tolerance.hpp"

namespace k3::kernels {

inline constexpr float kRmsNormEps = 1e-6f;

void rmsnorm_ref(std::span<const Bf16> x, std::span<const Bf16> weight, std::size_t tokens, std::size_t width,
                 float eps, std::span<float> out);

// BF16 output rounding (2^-9) plus a float sum of squares in a different order: 2^-7 relative.
inline constexpr Tolerance kRmsNormTolerance{1e-6, 0x1.0p-7};

// Read x and write y in BF16 (the weight row stays in cache): 4 bytes per element.
inline double rmsnorm_bytes(std::size_t tokens, std::size_t width) { return 4.0 * static_cast<double>(tokens * width); }

}  // namespace k3::kernels
