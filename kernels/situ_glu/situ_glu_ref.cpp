#include "kernels/situ_glu/situ_glu_ref.hpp"

#include <cmath>

#include "core/error.hpp"

namespace k3::kernels {

double softcap(double x, double cap) { return cap * std::tanh(x / cap); }
double situ(double x, double cap) { return softcap(x, cap) / (1.0 + std::exp(-x)); }

void situ_glu_ref(std::span<const Bf16> gate_up, std::size_t tokens, std::size_t width, std::span<float> out) {
  K3SIM_ASSERT(gate_up.size() == tokens * 2 * width && out.size() == tokens * width, "situ_glu_ref: bad sizes");
  for (std::size_t t = 0; t < tokens; ++t) {
    const Bf16* row = gate_up.data() + t * 2 * width;
    for (std::size_t c = 0; c < width; ++c) {
      const double a = bf16_to_double(row[c]);
      const double b = bf16_to_double(row[width + c]);
      out[t * width + c] = static_cast<float>(situ(a, 4.0) * softcap(b, 25.0));
    }
  }
}

}  // namespace k3::kernels
