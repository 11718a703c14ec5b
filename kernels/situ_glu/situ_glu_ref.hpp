#pragma once
// SiTU-GLU fused activation (K3's expert FFN): out = SiTU(a; 4) * softcap(b; 25), with
//   softcap(x; c) = c * tanh(x / c),  SiTU(x; c) = softcap(x; c) * sigmoid(x).
// Input layout is the fused up-projection output [tokens, 2 * width]: a = columns [0, width), b = [width, 2 width).
#include <cstddef>
#include <span>

#include "kernels/common/bf16.hpp"
#include "kernels/common/tolerance.hpp"

namespace k3::kernels {

double softcap(double x, double cap);
double situ(double x, double cap);

void situ_glu_ref(std::span<const Bf16> gate_up, std::size_t tokens, std::size_t width, std::span<float> out);

// BF16 output (2^-9 relative rounding) of a float computation with tanhf/expf: 2^-7 relative, plus an
// absolute floor for outputs that round to tiny values.
inline constexpr Tolerance kSituGluTolerance{1e-6, 0x1.0p-7};

// Bytes a launch moves: read 2 * width BF16, write width BF16 per token.
inline double situ_glu_bytes(std::size_t tokens, std::size_t width) { return 6.0 * static_cast<double>(tokens * width); }

}  // namespace k3::kernels
