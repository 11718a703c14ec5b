#pragma once
// GEMM reference: c[m, n] = a[m, k] * b[n, k]^T (a: activations, b: weights as stored, row-major), in FP32
// via Eigen. Test inputs are multiples of 1/8 in [-2, 2] (exact in BF16 and FP8 E4M3), so for k up to 2^14
// every partial sum is a multiple of 1/64 below 2^16 and the FP32 result is exact: the only error a BF16
// kernel may show is its output rounding.
#include <cstddef>
#include <span>
#include <vector>

#include "kernels/common/tolerance.hpp"

namespace k3::kernels {

void gemm_ref(std::span<const float> a, std::span<const float> b, std::size_t m, std::size_t n, std::size_t k,
              std::span<float> c);

// Grouped: expert g multiplies its rows a_g[tokens[g], k] by b_g[n, k]^T; a and c are packed by expert.
void grouped_gemm_ref(std::span<const float> a, std::span<const float> b, std::span<const std::size_t> tokens,
                      std::size_t n, std::size_t k, std::span<float> c);

// Exact FP32 result rounded once to BF16 (2^-9 relative); 2^-8 leaves room for split-K reductions in FP32.
inline constexpr Tolerance kGemmBf16OutTolerance{0.0, 0x1.0p-8};

inline double gemm_flops(std::size_t m, std::size_t n, std::size_t k) {
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}

}  // namespace k3::kernels
