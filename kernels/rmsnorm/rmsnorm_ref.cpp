#include "kernels/rmsnorm/rmsnorm_ref.hpp"

#include <cmath>

#include "core/error.hpp"

namespace k3::kernels {

void rmsnorm_ref(std::span<const Bf16> x, std::span<const Bf16> weight, std::size_t tokens, std::size_t width,
                 float eps, std::span<float> out) {
  K3SIM_ASSERT(x.size() == tokens * width && weight.size() == width && out.size() == tokens * width,
               "rmsnorm_ref: bad sizes");
  for (std::size_t t = 0; t < tokens; ++t) {
    double sum_sq = 0;
    for (std::size_t c = 0; c < width; ++c) {
      const double v = bf16_to_double(x[t * width + c]);
      sum_sq += v * v;
    }
    const double inv_rms = 1.0 / std::sqrt(sum_sq / static_cast<double>(width) + static_cast<double>(eps));
    for (std::size_t c = 0; c < width; ++c) {
      out[t * width + c] = static_cast<float>(bf16_to_double(x[t * width + c]) * inv_rms * bf16_to_double(weight[c]));
    }
  }
}

}  // namespace k3::kernels
