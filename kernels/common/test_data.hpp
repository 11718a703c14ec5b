#pragma once
// Deterministic inputs for kernels, tests and calibration (portable k3::core::Rng).
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/common/bf16.hpp"
#include "core/rng.hpp"

namespace k3::kernels {

inline std::vector<Bf16> random_bf16(std::size_t n, std::uint64_t seed, double lo, double hi) {
  core::Rng rng(seed);
  std::vector<Bf16> v(n);
  for (auto& x : v) x = to_bf16(static_cast<float>(rng.uniform(lo, hi)));
  return v;
}

inline std::vector<float> random_float(std::size_t n, std::uint64_t seed, double lo, double hi) {
  core::Rng rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(rng.uniform(lo, hi));
  return v;
}

// Multiples of 1/8 in [-2, 2]: exact in FP32, BF16 and FP8 E4M3 (see gemm_ref.hpp).
inline std::vector<float> random_eighths(std::size_t n, std::uint64_t seed) {
  core::Rng rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(static_cast<int>(rng.below(33)) - 16) / 8.0f;
  return v;
}

inline std::vector<Bf16> to_bf16(std::span<const float> v) {
  std::vector<Bf16> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = to_bf16(v[i]);
  return out;
}

inline std::vector<float> to_float(std::span<const Bf16> v) {
  std::vector<float> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = from_bf16(v[i]);
  return out;
}

// Each token picks `top_k` distinct experts uniformly (a routing sample for dispatch kernels).
inline std::vector<std::int32_t> random_routing(std::size_t tokens, std::size_t top_k, std::size_t experts,
                                                std::uint64_t seed) {
  core::Rng rng(seed);
  std::vector<std::int32_t> out;
  out.reserve(tokens * top_k);
  std::vector<std::int32_t> pool(experts);
  for (std::size_t t = 0; t < tokens; ++t) {
    for (std::size_t e = 0; e < experts; ++e) pool[e] = static_cast<std::int32_t>(e);
    for (std::size_t s = 0; s < top_k; ++s) {  // partial Fisher-Yates
      const std::size_t j = s + static_cast<std::size_t>(rng.below(experts - s));
      std::swap(pool[s], pool[j]);
      out.push_back(pool[s]);
    }
  }
  return out;
}

}  // namespace k3::kernels
