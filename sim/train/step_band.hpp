#pragma once
// How sure a step prediction is: the uncertainty band and the sensitivity ranking.
//
// Every number the step read is a provenance entry with a plausible low..high range (core/provenance.hpp).
// The band propagates all the ranges at once: a Latin hypercube of `samples` points, each entry drawn from
// a triangular distribution on its range with the mode at its registered value, and each point a whole
// step simulation; P10/P50/P90 of step time, throughput, MFU and memory come from those runs. The
// sensitivity ranking (a tornado chart) moves one entry at a time to its low and to its high end, the
// others at their values, and ranks the entries by how far the step time moves.
//
// The hypercube's strata are drawn per entry id from (seed, id), so two steps that share an entry (the
// variants of a compare) see the same draws of it in the same sample: their samples are paired, and
// "the winner holds across the band" is a statement about each sample. The members of one software stack (the
// kernel libraries; the communication libraries: stack_factors.hpp) are not drawn apart: they share a stack's
// strata, drawn from (seed, stack), so that a stack slower than measured is slower for all its kernels at once.
//
// Cost. The runs share the sampled expert load and every collective simulated alone (StepReuse). The link
// figures ("link.*" entries) are what forces collectives to be simulated again, so they form a sliced
// hypercube: `network_draws` points of their own, each shared by samples/network_draws samples, while the
// GPU-side numbers take a point per sample (Qian, "Sliced Latin hypercube designs", JASA 2012). A step
// on a network model with contention (flow) is too slow to repeat ~100 times: its runs use the
// contention-free analytical model, and each is scaled by (plain run on its own model) / (plain run on the
// analytical model), so the band is centred on the step's own model and its spread is the analytical one.
#include <cstdint>
#include <string>
#include <vector>

#include "core/provenance.hpp"
#include "sim/train/step_simulator.hpp"

namespace k3::train {

struct BandOptions {
  int samples = 64;         // hypercube points; 0 skips the band (and the ranking)
  std::uint64_t seed = 1;   // the scenario's seed by default
  int threads = 0;          // workers over the sample runs; 0: one per hardware thread
  int network_draws = 8;    // distinct draws of the link figures (a slice of the hypercube); <= samples
  bool sensitivity = true;  // also the one-at-a-time ranking (two runs per ranged entry); compare and
                            // validate read only the band
  bool correlated_stacks = true;  // one software stack's numbers drawn as one factor (stack_factors.hpp)
};

struct Quantiles {
  double p10 = 0, p50 = 0, p90 = 0;
};
// P10/P50/P90 of `values` (linear between order statistics). Precondition: not empty.
Quantiles quantiles(std::vector<double> values);

struct Sensitivity {
  core::ProvenanceEntry entry;     // at its registered value, with range, kind and source
  double step_time_at_low_s = 0;   // the entry alone at its low end
  double step_time_at_high_s = 0;  // ... and at its high end
  double swing_s() const { return step_time_at_high_s - step_time_at_low_s; }
};

struct StepBand {
  int samples = 0;
  Quantiles step_time_s, tokens_per_s, mfu, memory_bytes_per_gpu;
  std::vector<double> sample_step_time_s;  // in sample order (paired across steps with the same seed)
  std::vector<Sensitivity> sensitivity;    // by |swing|, largest first; entries with no range are left out
  int runs = 0;                            // step simulations the band and the ranking took
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
