#include "kernels/permute/permute_ref.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace k3::kernels {

DispatchLayout dispatch_layout_ref(std::span<const std::int32_t> expert, std::size_t tokens, std::size_t top_k,
                                   std::size_t experts) {
  K3SIM_ASSERT(expert.size() == tokens * top_k, "dispatch_layout_ref: bad sizes");
  DispatchLayout l;
  l.counts.assign(experts, 0);
  for (std::int32_t e : expert) {
    K3SIM_ASSERT(e >= 0 && static_cast<std::size_t>(e) < experts, "dispatch_layout_ref: expert out of range");
    ++l.counts[static_cast<std::size_t>(e)];
  }
  l.offsets.assign(experts, 0);
  for (std::size_t e = 1; e < experts; ++e) l.offsets[e] = l.offsets[e - 1] + l.counts[e - 1];
  std::vector<std::int32_t> next = l.offsets;
  l.position.resize(expert.size());
  l.source_token.resize(expert.size());
  for (std::size_t p = 0; p < expert.size(); ++p) {
    const std::int32_t dest = next[static_cast<std::size_t>(expert[p])]++;
    l.position[p] = dest;
    l.source_token[static_cast<std::size_t>(dest)] = static_cast<std::int32_t>(p / top_k);
  }
  return l;
}

void permute_ref(std::span<const Bf16> x, const DispatchLayout& layout, std::size_t top_k, std::size_t width,
                 std::span<Bf16> out) {
  const std::size_t copies = layout.position.size();
  K3SIM_ASSERT(x.size() * top_k == copies * width && out.size() == copies * width, "permute_ref: bad sizes");
  for (std::size_t p = 0; p < copies; ++p) {
    const auto dest = static_cast<std::size_t>(layout.position[p]);
    std::copy_n(x.begin() + static_cast<std::ptrdiff_t>((p / top_k) * width), width,
                out.begin() + static_cast<std::ptrdiff_t>(dest * width));
  }
}

void unpermute_ref(std::span<const Bf16> y, const DispatchLayout& layout, std::span<const float> gate,
                   std::size_t tokens, std::size_t top_k, std::size_t width, std::span<float> out) {
  K3SIM_ASSERT(y.size() == tokens * top_k * width && gate.size() == tokens * top_k && out.size() == tokens * width,
               "unpermute_ref: bad sizes");
  for (std::size_t t = 0; t < tokens; ++t) {
    for (std::size_t c = 0; c < width; ++c) {
      float acc = 0;
      for (std::size_t s = 0; s < top_k; ++s) {
        const auto row = static_cast<std::size_t>(layout.position[t * top_k + s]);
        acc += gate[t * top_k + s] * from_bf16(y[row * width + c]);
      }
      out[t * width + c] = acc;
    }
  }
}

}  // namespace k3::kernels
