#pragma once
// Seeded random numbers that give the same sequence on every platform and compiler.
// std::mt19937_64 is specified bit-for-bit by the standard; the std:: distributions are not, so the
// uniform and normal draws are written here.
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>

namespace k3::core {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}

  std::uint64_t next_u64() { return engine_(); }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // Uniform integer in [0, n). Lemire's multiply-shift; bias is below 2^-64 * n, irrelevant here.
  std::uint64_t below(std::uint64_t n) {
    __extension__ using U128 = unsigned __int128;
    return static_cast<std::uint64_t>((static_cast<U128>(engine_()) * n) >> 64);
  }
  // Standard normal by Box-Muller (both values used).
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u1 = uniform();
    while (u1 <= 0.0) u1 = uniform();
    const double u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    spare_ = r * std::sin(2.0 * std::numbers::pi * u2);
    has_spare_ = true;
    return r * std::cos(2.0 * std::numbers::pi * u2);
  }
  double normal(double mean, double stddev) { return mean + stddev * normal(); }

  // An independent stream for a sub-component, derived from this seed and a label (SplitMix64 mix).
  static std::uint64_t derive(std::uint64_t seed, std::uint64_t label) {
    std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (label + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

 private:
  std::mt19937_64 engine_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

}  // namespace k3::core
