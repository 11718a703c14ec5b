#pragma once
// How sure a step prediction is: the uncertainty band and the sensitivity ranking.
//
// Every number the step read is a provenance entry with a plausible low..high range (core/provenance.hpp).
// The band propagates all the ranges at once: a Latin hypercube of `samples` points, each entry drawn from a
// triangular distribution on its range with the mode at its registered value. The members of one software stack
// (the kernel libraries; the communication libraries: stack_factors.hpp) are not drawn apart: they share a
// stack's strata, drawn from (seed, stack), so that a stack slower than measured is slower for all its kernels at
// once. A stack, or a ranged number outside every stack, is a factor (band_factors.hpp).
//
// Cost (issue 44, item 5). The step is simulated at each factor's two ends, the others at their registered
// values: two runs per factor, which are also the sensitivity ranking (the tornado, by factor). The samples are
// drawn on the response those runs give (band_factors.hpp: piecewise linear in each factor, additive in the log of
// the step time), so their number costs nothing. `simulate_each_sample` simulates every sample instead (the way
// the band was made before, and the check of the response), and `entry_sensitivity` adds a tornado by number:
// each ranged entry alone at its two ends.
//
// The hypercube's strata are drawn per factor from (seed, factor), so two steps that share a factor (the
// variants of a compare) see the same draws of it in the same sample: their samples are paired, and "the winner
// holds across the band" is a statement about each sample.
//
// A step on a network model with contention (flow) is too slow to repeat: its runs use the contention-free
// analytical model, and each is scaled by (plain run on its own model) / (plain run on the analytical model), so
// the band is centred on the step's own model and its spread is the analytical one. The runs share the sampled
// expert load and every collective simulated alone (StepReuse).
#include <cstdint>
#include <string>
#include <vector>

#include "core/provenance.hpp"
#include "sim/train/step_simulator.hpp"

namespace k3::train {

struct BandOptions {
  int samples = 64;         // hypercube points; 0 skips the band (and the ranking)
  std::uint64_t seed = 1;   // the scenario's seed by default
  int threads = 0;          // workers over the runs; 0: one per hardware thread
  bool correlated_stacks = true;  // one software stack's numbers drawn as one factor (stack_factors.hpp)
  bool entry_sensitivity = false;     // also each ranged entry alone at its two ends (two runs per entry)
  bool simulate_each_sample = false;  // one step simulation per sample instead of the factors' response
  int network_draws = 8;  // simulate_each_sample: distinct draws of the link figures (a slice of the hypercube)
};

struct Quantiles {
  double p10 = 0, p50 = 0, p90 = 0;
};
// P10/P50/P90 of `values` (linear between order statistics). Precondition: not empty.
Quantiles quantiles(std::vector<double> values);

struct Sensitivity {
  std::string id;  // a stack's name, or the entry's id
  bool is_stack = false;
  std::vector<core::ProvenanceEntry> members;  // at their registered values, with ranges, kinds and sources
  double step_time_at_low_s = 0;   // a stack: every member at its slow end; a number: at its low end
  double step_time_at_high_s = 0;  // ... at its fast end; at its high end
  double swing_s() const { return step_time_at_high_s - step_time_at_low_s; }
};

struct StepBand {
  int samples = 0;
  Quantiles step_time_s, tokens_per_s, mfu, memory_bytes_per_gpu;
  std::vector<double> sample_step_time_s;  // in sample order (paired across steps with the same seed)
  std::vector<Sensitivity> sensitivity;    // by factor, largest |swing| first
  std::vector<Sensitivity> entry_sensitivity;  // by entry (BandOptions::entry_sensitivity), largest |swing| first
  int runs = 0;                            // step simulations the band and the rankings took
  std::string method;                      // how the band was made, for the outputs
  // Whether `value` lies inside [p10, p90] of the step time.
  bool step_time_in_band(double value) const { return value >= step_time_s.p10 && value <= step_time_s.p90; }
};

// The override values of sample `s` of `samples` for the ranged entries in `entries` (hypercube strata
// per id, triangular on the entry's range).
// Entries whose id starts with "link." take `network_draws` distinct values (sample s takes draw
// s % network_draws); 0 or >= samples: every entry a value per sample.
// With `correlated_stacks`, the members of one software stack (stack_factors.hpp) share their strata, drawn
// from (seed, stack): each takes the same quantile of its own range in a sample (1 - it for a member that slows
// the step when larger); a stack with a link figure is drawn on the link slice.
std::vector<std::map<std::string, double, std::less<>>> band_samples(const std::vector<core::ProvenanceEntry>& entries,
                                                                    int samples, std::uint64_t seed,
                                                                    int network_draws = 0,
                                                                    bool correlated_stacks = true);

// `nominal` is the plain run of the same inputs (its provenance lists the entries to vary).
StepBand simulate_step_band(const StepSpec& spec, const model::ModelSpec& model, const topo::Topology& topology,
                            const cost::CalibrationProfile* profile, const StepResult& nominal,
                            const BandOptions& options);

}  // namespace k3::train
