#include "kernels/mla/mla_ref.hpp"

#include <cmath>
#include <vector>

#include "core/error.hpp"

namespace k3::kernels {

void mla_prefill_ref(std::span<const float> q, std::span<const float> k, std::span<const float> v, std::size_t tokens,
                     std::size_t heads, std::size_t dqk, std::size_t dv, std::span<float> o) {
  K3SIM_ASSERT(q.size() == tokens * heads * dqk && k.size() == q.size() && v.size() == tokens * heads * dv &&
                   o.size() == v.size(), "mla_prefill_ref: bad sizes");
  const double scale = 1.0 / std::sqrt(static_cast<double>(dqk));
  std::vector<double> p(tokens);
  for (std::size_t h = 0; h < heads; ++h) {
    for (std::size_t i = 0; i < tokens; ++i) {
      double max_s = -INFINITY;
      for (std::size_t j = 0; j <= i; ++j) {
        double s = 0;
        for (std::size_t d = 0; d < dqk; ++d) s += static_cast<double>(q[(i * heads + h) * dqk + d]) * static_cast<double>(k[(j * heads + h) * dqk + d]);
        p[j] = s * scale;
        max_s = std::max(max_s, p[j]);
      }
      double sum = 0;
      for (std::size_t j = 0; j <= i; ++j) sum += (p[j] = std::exp(p[j] - max_s));
      for (std::size_t d = 0; d < dv; ++d) {
        double acc = 0;
        for (std::size_t j = 0; j <= i; ++j) acc += p[j] * static_cast<double>(v[(j * heads + h) * dv + d]);
        o[(i * heads + h) * dv + d] = static_cast<float>(acc / sum);
      }
    }
  }
}

void mla_output_gate_ref(std::span<const float> gate, std::span<float> o) {
  K3SIM_ASSERT(gate.size() == o.size(), "mla_output_gate_ref: bad sizes");
  for (std::size_t i = 0; i < o.size(); ++i) {
    o[i] = static_cast<float>(static_cast<double>(o[i]) / (1.0 + std::exp(-static_cast<double>(gate[i]))));
  }
}

void mla_decode_ref(std::span<const float> q, std::span<const float> cache, std::size_t heads, std::size_t cache_len,
                    std::size_t dk, std::size_t dv, float scale, std::span<float> o) {
  K3SIM_ASSERT(q.size() == heads * dk && cache.size() == cache_len * dk && o.size() == heads * dv && dv <= dk &&
                   cache_len >= 1, "mla_decode_ref: bad sizes");
  std::vector<double> p(cache_len);
  for (std::size_t h = 0; h < heads; ++h) {
    double max_s = -INFINITY;
    for (std::size_t j = 0; j < cache_len; ++j) {
      double s = 0;
      for (std::size_t d = 0; d < dk; ++d) s += static_cast<double>(q[h * dk + d]) * static_cast<double>(cache[j * dk + d]);
      p[j] = s * static_cast<double>(scale);
      max_s = std::max(max_s, p[j]);
    }
    double sum = 0;
    for (auto& x : p) sum += (x = std::exp(x - max_s));
    for (std::size_t d = 0; d < dv; ++d) {
      double acc = 0;
      for (std::size_t j = 0; j < cache_len; ++j) acc += p[j] * static_cast<double>(cache[j * dk + d]);
      o[h * dv + d] = static_cast<float>(acc / sum);
    }
  }
}

}  // namespace k3::kernels
