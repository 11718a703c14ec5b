#pragma once
// The band as a few factors, each simulated at its two ends (issue 44, item 5: the band's cost at most 3x a plain
// run, where one step simulation per hypercube sample cost 30x).
//
// A factor is what the band draws as one random quantity: a software stack (its members move together,
// stack_factors.hpp) or a ranged number outside every stack. A factor's quantile u in [0, 1] sets each member to
// the triangular inverse CDF of its range (mode at its registered value) at u, or at 1 - u for a member that slows
// the step when larger, so u = 0 is the factor's slow end (its low end for a number alone) and u = 1 its fast end.
// A factor's position is the mean of its members' positions in their ranges, each 0 at the slow end and 1 at the
// fast end: the registered values sit at some position p0 of their own.
//
// The step is simulated at each factor's two ends, the other factors at their registered values, and the log of
// the step time is taken piecewise linear in each factor's position through (0, end run), (p0, plain run),
// (1, end run), and additive over factors: ln T = ln T_plain + sum_f r_f(position_f). The hypercube's samples are
// then drawn on that response, not simulated. This is the univariate dimension reduction of Rahman and Xu
// ("A univariate dimension-reduction method for multi-dimensional integration in stochastic mechanics",
// Probabilistic Engineering Mechanics 19(4), 2004), in the log of the step time, with the end runs as its nodes.
// What it leaves out is the interaction of two factors (a faster kernel stack mattering less when communication
// is exposed); `BandOptions::simulate_each_sample` simulates every sample instead, for checking it.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/provenance.hpp"

namespace k3::train {

struct FactorMember {
  core::ProvenanceEntry entry;
  bool faster_when_larger = true;  // a number alone: taken as true (u = 0 is its low end)
};

struct BandFactor {
  std::string name;  // a stack's name, or the entry's id for a number alone
  bool is_stack = false;
  std::vector<FactorMember> members;
};

// The factors of the ranged entries, in the order of their first member in `entries`. With `correlated_stacks`
// false every ranged entry is a factor of its own.
std::vector<BandFactor> band_factors(const std::vector<core::ProvenanceEntry>& entries, bool correlated_stacks);

// A member's value at factor quantile u (0: slow end, 1: fast end), inside its range.
double member_value(const FactorMember& m, double u);
// The factor's members at quantile u, as assumption overrides.
std::map<std::string, double, std::less<>> factor_overrides(const BandFactor& f, double u);
// The factor's position (0 slow end .. 1 fast end) with its members at quantile u, and at their registered values.
double factor_position_at(const BandFactor& f, double u);
double factor_position_at_registered(const BandFactor& f);

// ln(T / T_plain) of one factor, piecewise linear in its position through the end runs.
struct FactorResponse {
  double registered_position = 0.5;  // p0: where the registered values sit
  double log_ratio_at_slow_end = 0;  // ln(T at position 0 / T_plain)
  double log_ratio_at_fast_end = 0;  // ln(T at position 1 / T_plain)
  double at(double position) const;
};

// Stratified quantiles in [0, 1] of one factor for `samples` hypercube points, drawn from (seed, name) so that two
// steps sharing a factor see the same draws in the same sample (compare's pairing).
std::vector<double> factor_quantiles(const BandFactor& f, int samples, std::uint64_t seed);

}  // namespace k3::train
