#pragma once
// Goodput of a whole training run: the step the simulation gives, run for D days under the interruptions of a
// RecoverySpec, replicated (P10..P90 over seeds), with the checkpoint interval that maximises it. Young's and
// Daly's closed forms give the first guess and the check; the simulated optimum is the best of a scan around
// Daly's interval, every point on the same failures (common random numbers), so the scan compares intervals, not
// luck.
#include <array>
#include <cstdint>
#include <vector>

#include "sim/reliability/recovery_spec.hpp"
#include "sim/reliability/run_timeline.hpp"

namespace k3::reliability {

// The longest run simulated: its timeline runs on the picosecond clock, which spans 106 days.
inline constexpr double kMaxRunDays = 100;
// At most this many interruptions, and this many saves, in one replication of a run (InputError beyond).
inline constexpr double kMaxEventsPerRun = 1e5;

// What the step simulation tells the run.
struct RunFacts {
  double gpus = 0;
  double gpus_per_node = 8;
  double step_time_s = 0;
  double tokens_per_step = 0;
  double checkpoint_bytes = 0;  // weights and optimizer state of the whole model, written by every save
};

struct GoodputOptions {
  double days = 0;
  int replications = 64;
  std::uint64_t seed = 0;
};

struct SampleBand {
  double p10 = 0, p50 = 0, p90 = 0, mean = 0;
};

struct IntervalPoint {
  double interval_s = 0;
  double ettr_mean = 0;
  double ettr_stderr = 0;  // of the mean over the replications
};

struct GoodputResult {
  double days = 0;
  RunFacts facts;
  RecoverySpec spec;
  int replications = 0;
  std::array<double, kCauseCount> rates_per_hour{};  // of the whole job, by cause
  double save_s = 0;
  double restore_s = 0;
  double mtbf_s = 0;  // between unplanned interruptions (planned ones lose no work)
  double young_interval_s = 0;
  double daly_interval_s = 0;
  std::vector<IntervalPoint> scan;
  double optimum_interval_s = 0;  // the scan's best
  double interval_s = 0;          // the one reported: the scenario's, or the optimum
  bool interval_given = false;
  SampleBand interruptions, ettr, goodput_tokens_per_s, tokens_trained;
  std::array<double, kCauseCount> mean_interruptions{}, mean_lost_work_s{}, mean_down_s{};
  double mean_checkpoint_s = 0, mean_straggler_s = 0, mean_spare_wait_s = 0, mean_stragglers = 0;
  double ideal_tokens_per_s = 0;
};

// Young (1974): sqrt(2 save MTBF). Daly (FGCS 22, 2006), his higher-order optimum for save < 2 MTBF:
// sqrt(2 save M) (1 + sqrt(save / 2M) / 3 + (save / 2M) / 9) - save; M otherwise.
double young_interval_s(double save_s, double mtbf_s);
double daly_interval_s(double save_s, double mtbf_s);

GoodputResult simulate_goodput(const RecoverySpec& spec, const RunFacts& facts, const GoodputOptions& options);

// The timeline inputs of `spec` for `facts` at one checkpoint interval (exposed for tests).
TimelineInputs timeline_inputs(const RecoverySpec& spec, const RunFacts& facts, double days, double interval_s);

// Mean and standard error of the ETTR of `replications` seeded timelines.
IntervalPoint evaluate_interval(const TimelineInputs& in, int replications, std::uint64_t seed);

}  // namespace k3::reliability
