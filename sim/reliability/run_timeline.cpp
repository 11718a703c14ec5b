#include "sim/reliability/run_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "sim/engine/simulator.hpp"

namespace k3::reliability {

using core::SimTime;

double TimelineOutcome::accounted_s() const {
  return useful_s + std::accumulate(lost_work_s.begin(), lost_work_s.end(), 0.0) +
         std::accumulate(down_s.begin(), down_s.end(), 0.0) + checkpoint_s + straggler_slow_s + straggler_down_s;
}

namespace {

constexpr std::uint64_t kStragglerStream = 100;

class Timeline {
 public:
  Timeline(const TimelineInputs& in, std::uint64_t seed) : in_(in) {
    K3SIM_ASSERT(in.interval_s > 0 && in.wall_s > 0 && in.straggler_slowdown >= 1, "timeline: bad inputs");
    for (std::size_t c = 0; c < kCauseCount; ++c) clocks_.emplace_back(core::Rng::derive(seed, c));
    clocks_.emplace_back(core::Rng::derive(seed, kStragglerStream));
  }

  TimelineOutcome run() {
    end_ = SimTime::from_seconds(in_.wall_s);
    for (std::size_t c = 0; c < kCauseCount; ++c) arm(c);
    arm(kCauseCount);
    start_training();
    sim_.run(end_);
    settle_at_end();
    return out_;
  }

 private:
  enum class State { training, saving, down };
  // What a save in progress leads to: more training, or the restart that ends a planned interruption or a
  // straggler.
  enum class AfterSave { train, planned_restart, straggler_restart };

  double now_s() const { return sim_.now().seconds(); }
  double since_s() const { return (sim_.now() - since_).seconds(); }

  // The next firing of clock `c` (a cause, or kCauseCount: stragglers), unless it falls after the run.
  void arm(std::size_t c) {
    const double rate = c < kCauseCount ? in_.rates_per_s[c] : in_.stragglers_per_s;
    if (!(rate > 0)) return;
    const double dt = -std::log(1.0 - clocks_[c].uniform()) / rate;
    if (dt >= (end_ - sim_.now()).seconds()) return;
    sim_.schedule_after(SimTime::from_seconds(dt), [this, c] {
      if (c < kCauseCount) {
        interrupt(static_cast<FailureCause>(c));
      } else {
        straggler_appears();
      }
      arm(c);
    });
  }

  // Training since `since_` at the current speed, into the open segment.
  void accrue() {
    const double dt = since_s();
    seg_wall_ += dt;
    seg_ += dt / slowdown_;
    since_ = sim_.now();
  }

  void start_training() {
    state_ = State::training;
    since_ = sim_.now();
    schedule_save();
  }

  void schedule_save() {
    sim_.cancel(save_event_);
    const double left = std::max(0.0, in_.interval_s - seg_) * slowdown_;
    save_event_ = sim_.schedule_after(SimTime::from_seconds(left), [this] { begin_save(AfterSave::train); });
  }

  void begin_save(AfterSave then) {
    if (state_ == State::training) accrue();
    sim_.cancel(save_event_);
    state_ = State::saving;
    after_save_ = then;
    since_ = sim_.now();
    save_event_ = sim_.schedule_after(SimTime::from_seconds(in_.save_s), [this] { end_save(); });
  }

  void end_save() {
    out_.checkpoint_s += since_s();
    commit_segment();
    switch (after_save_) {
      case AfterSave::train: start_training(); break;
      case AfterSave::planned_restart: go_down(FailureCause::planned, 0); break;
      case AfterSave::straggler_restart: go_down(std::nullopt, 0); break;
    }
  }

  // The open segment kept: its training is useful, its slowdown is the straggler's.
  void commit_segment() {
    out_.useful_s += seg_;
    out_.straggler_slow_s += seg_wall_ - seg_;
    seg_ = seg_wall_ = 0;
  }

  void interrupt(FailureCause c) {
    if (c == FailureCause::planned) {
      // A maintenance window that opens while the job is down is taken in the same recovery.
      if (state_ == State::down) return;
      ++out_.interruptions[static_cast<std::size_t>(c)];
      if (state_ == State::training) {
        begin_save(AfterSave::planned_restart);
      } else {
        after_save_ = AfterSave::planned_restart;  // the save under way serves
      }
      return;
    }
    ++out_.interruptions[static_cast<std::size_t>(c)];
    auto& lost = out_.lost_work_s[static_cast<std::size_t>(c)];
    switch (state_) {
      case State::training:
        accrue();
        lost += seg_wall_;
        break;
      case State::saving:  // the save dies with the job: the segment and the time spent saving it are lost
        lost += seg_wall_ + since_s();
        break;
      case State::down:  // the recovery so far is wasted; a new one starts for this cause
        close_down();
        break;
    }
    seg_ = seg_wall_ = 0;
    const double wait = takes_a_node(c) ? spare_wait() : 0.0;
    go_down(c, wait);
  }

  // Seconds until a node is free to replace the one that failed now (it goes to repair).
  double spare_wait() {
    if (!in_.spare_nodes) return 0;
    const double t = now_s();
    std::erase_if(repairs_, [t](double back) { return back <= t; });
    repairs_.push_back(t + in_.repair_s);
    const auto spares = static_cast<std::size_t>(*in_.spare_nodes);
    if (repairs_.size() <= spares) return 0;
    // In repair at time x: the returns after x. At most `spares` may be out: wait for the (n - spares)-th return.
    std::sort(repairs_.begin(), repairs_.end());
    return repairs_[repairs_.size() - spares - 1] - t;
  }

  // `cause` none: a straggler's swap.
  void go_down(std::optional<FailureCause> cause, double wait_s) {
    sim_.cancel(save_event_);
    sim_.cancel(up_event_);
    state_ = State::down;
    down_cause_ = cause;
    since_ = sim_.now();
    out_.spare_wait_s += wait_s;
    up_event_ = sim_.schedule_after(SimTime::from_seconds(wait_s + in_.restart_s + in_.restore_s), [this] { come_up(); });
  }

  void close_down() {
    if (down_cause_) {
      out_.down_s[static_cast<std::size_t>(*down_cause_)] += since_s();
    } else {
      out_.straggler_down_s += since_s();
    }
  }

  void come_up() {
    close_down();
    clear_straggler();  // a restart leaves the slow GPU out
    start_training();
  }

  void straggler_appears() {
    if (slowdown_ > 1 || state_ == State::down) return;  // one at a time; a down job swaps it in its restart
    ++out_.stragglers;
    if (state_ == State::training) accrue();
    slowdown_ = in_.straggler_slowdown;
    if (state_ == State::training) schedule_save();
    found_event_ = sim_.schedule_after(SimTime::from_seconds(in_.straggler_found_s), [this] {
      if (state_ == State::training) {
        begin_save(AfterSave::straggler_restart);
      } else if (state_ == State::saving && after_save_ == AfterSave::train) {
        after_save_ = AfterSave::straggler_restart;
      }
    });
  }

  void clear_straggler() {
    sim_.cancel(found_event_);
    slowdown_ = 1;
  }

  void settle_at_end() {
    const double left = (end_ - since_).seconds();
    switch (state_) {
      case State::training:
        seg_wall_ += left;
        seg_ += left / slowdown_;
        commit_segment();
        break;
      case State::saving:
        out_.checkpoint_s += left;
        commit_segment();
        break;
      case State::down:
        if (down_cause_) {
          out_.down_s[static_cast<std::size_t>(*down_cause_)] += left;
        } else {
          out_.straggler_down_s += left;
        }
        break;
    }
  }

  const TimelineInputs& in_;
  engine::Simulator sim_;
  std::vector<core::Rng> clocks_;
  SimTime end_;
  State state_ = State::training;
  AfterSave after_save_ = AfterSave::train;
  SimTime since_;
  double seg_ = 0;       // training in the open segment (since the last save or restart)
  double seg_wall_ = 0;  // the wall-clock it took
  double slowdown_ = 1;
  std::optional<FailureCause> down_cause_;
  engine::EventHandle save_event_{};
  engine::EventHandle up_event_{};
  engine::EventHandle found_event_{};
  std::vector<double> repairs_;  // when each node in repair comes back
  TimelineOutcome out_;
};

}  // namespace

TimelineOutcome simulate_timeline(const TimelineInputs& in, std::uint64_t seed) {
  Timeline t(in, seed);
  return t.run();
}

}  // namespace k3::reliability
