#pragma once
// One training run's wall-clock timeline under interruptions, as a discrete-event simulation on the engine:
// training, blocking checkpoint saves every `interval_s` of training, and, after each interruption, the work
// since the last save redone and a recovery (waiting for a spare node when the pool is empty, restarting the
// job, reading the checkpoint back). Each cause fires on its own exponential clock (its own random stream, so
// two runs of one seed at different intervals see the same failures: common random numbers). A straggler slows
// the whole synchronous job until it is found and swapped out by a restart (a save first: nothing lost), or
// until an earlier restart drops it.
#include <array>
#include <cstdint>
#include <optional>

#include "sim/reliability/failure_rates.hpp"

namespace k3::reliability {

struct TimelineInputs {
  double wall_s = 0;                       // the run's length
  std::array<double, kCauseCount> rates_per_s{};  // interruptions per second of the whole job, by cause
  double save_s = 0;                       // one blocking checkpoint save
  double restore_s = 0;                    // reading it back in a recovery
  double restart_s = 0;                    // detect, reschedule and re-initialise the job
  double interval_s = 0;                   // of training between saves (> 0)
  std::optional<int> spare_nodes;          // none: a replacement node is always at hand
  double repair_s = 0;                     // a node out for repair (with spare_nodes)
  double stragglers_per_s = 0;             // a GPU of the job turning slow
  double straggler_slowdown = 1;           // the job's step time while it is there (>= 1)
  double straggler_found_s = 0;            // from its start to its swap
};

struct TimelineOutcome {
  double useful_s = 0;                      // training kept (the open segment at the end counts)
  std::array<int, kCauseCount> interruptions{};
  std::array<double, kCauseCount> lost_work_s{};  // training thrown away, wall-clock
  std::array<double, kCauseCount> down_s{};       // recovering: spare wait, restart, restore
  double checkpoint_s = 0;                  // saving, training paused
  double straggler_slow_s = 0;              // wall-clock beyond the training done while a straggler was there
  double straggler_down_s = 0;              // the restarts that swapped stragglers out
  int stragglers = 0;
  double spare_wait_s = 0;                  // of down_s: waiting for a node back from repair
  // useful + lost + down + checkpoint + straggler slow + straggler down = wall_s (to rounding)
  double accounted_s() const;
};

TimelineOutcome simulate_timeline(const TimelineInputs& in, std::uint64_t seed);

}  // namespace k3::reliability
