#include "sim/train/band_factors.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/rng.hpp"
#include "sim/train/stack_factors.hpp"

namespace k3::train {

namespace {

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

// A member's position in its range: 0 at the end that slows the step, 1 at the end that speeds it.
double member_position(const FactorMember& m, double value) {
  const auto& e = m.entry;
  const double p = (value - e.low) / (e.high - e.low);
  return m.faster_when_larger ? p : 1 - p;
}

// Inverse CDF of the triangular distribution on [a, b] with mode c.
double triangular_inverse(double u, double a, double c, double b) {
  const double fc = (c - a) / (b - a);
  const double x = u < fc ? a + std::sqrt(u * (b - a) * (c - a)) : b - std::sqrt((1 - u) * (b - a) * (b - c));
  return std::clamp(x, a, b);
}

// Quantiles 0..1 of a hypercube of `n` points: one per stratum in a shuffled order, jittered inside it.
std::vector<double> stratified_quantiles(int n, std::uint64_t stream) {
  core::Rng rng(stream);
  std::vector<int> strata(static_cast<std::size_t>(n));
  std::iota(strata.begin(), strata.end(), 0);
  for (std::size_t i = strata.size(); i > 1; --i) std::swap(strata[i - 1], strata[rng.below(i)]);
  std::vector<double> u;
  for (int k = 0; k < n; ++k) u.push_back((strata[static_cast<std::size_t>(k)] + rng.uniform()) / n);
  return u;
}

// The random stream of a number alone, and of a stack, under `seed`.
std::uint64_t entry_stream(std::uint64_t seed, std::string_view id) { return seed ^ fnv1a(id); }
std::uint64_t stack_stream(std::uint64_t seed, std::string_view stack) {
  return seed ^ fnv1a("stack:") ^ fnv1a(stack);
}

}  // namespace

std::vector<BandFactor> band_factors(const std::vector<core::ProvenanceEntry>& entries, bool correlated_stacks) {
  std::vector<BandFactor> out;
  for (const auto& e : entries) {
    if (!e.has_range()) continue;
    const auto m = correlated_stacks ? stack_of(e.id) : std::nullopt;
    if (!m) {
      out.push_back({e.id, false, {{e, true}}});
      continue;
    }
    auto it = std::find_if(out.begin(), out.end(), [&](const BandFactor& f) { return f.is_stack && f.name == m->stack; });
    if (it == out.end()) it = out.insert(out.end(), BandFactor{std::string(m->stack), true, {}});
    it->members.push_back({e, m->faster_when_larger});
  }
  return out;
}

double member_value(const FactorMember& m, double u) {
  const auto& e = m.entry;
  return triangular_inverse(m.faster_when_larger ? u : 1 - u, e.low, e.nominal, e.high);
}

std::map<std::string, double, std::less<>> factor_overrides(const BandFactor& f, double u) {
  std::map<std::string, double, std::less<>> out;
  for (const auto& m : f.members) out[m.entry.id] = member_value(m, u);
  return out;
}

double factor_position_at(const BandFactor& f, double u) {
  double sum = 0;
  for (const auto& m : f.members) sum += member_position(m, member_value(m, u));
  return sum / static_cast<double>(f.members.size());
}

double factor_position_at_registered(const BandFactor& f) {
  double sum = 0;
  for (const auto& m : f.members) sum += member_position(m, m.entry.nominal);
  return sum / static_cast<double>(f.members.size());
}

double FactorResponse::at(double position) const {
  // Registered values at an end (a datasheet rate that is the top of its range) leave that side flat.
  if (position < registered_position) {
    return log_ratio_at_slow_end * (registered_position - position) / registered_position;
  }
  if (position > registered_position) {
    return log_ratio_at_fast_end * (position - registered_position) / (1 - registered_position);
  }
  return 0;
}

std::vector<double> factor_quantiles(const BandFactor& f, int samples, std::uint64_t seed) {
  return stratified_quantiles(samples, f.is_stack ? stack_stream(seed, f.name) : entry_stream(seed, f.name));
}

}  // namespace k3::train
