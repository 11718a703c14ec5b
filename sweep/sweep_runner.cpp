#include "sweep/sweep_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/error.hpp"
#include "core/wall_clock.hpp"
#include "core/parallel_for.hpp"
#include "sweep/pareto.hpp"

namespace k3::sweep {

namespace {

std::string format_duration(double s) {
  if (s < 60) return fmt::format("{:.0f} s", s);
  if (s < 3600) return fmt::format("{:.0f} min {:02.0f} s", std::floor(s / 60), std::fmod(s, 60));
  return fmt::format("{:.0f} h {:02.0f} min", std::floor(s / 3600), std::fmod(s / 60, 60));
}

}  // namespace

PointResult evaluate_point(std::size_t index, const GridPoint& settings, const Simulate& simulate) {
  PointResult r;
  r.index = index;
  r.settings = settings;
  try {
    r.step = simulate(settings);
    r.ran = true;
    r.feasible = r.step.at("fits_in_memory").get<bool>();
    if (!r.feasible) r.reason = "does not fit in memory";
  } catch (const core::InputError& e) {
    r.reason = e.what();
  } catch (const std::exception& e) {
    r.reason = std::string("internal error: ") + e.what();
  }
  return r;
}

Progress::Progress(std::size_t total, std::FILE* out, bool terminal, std::string label)
    : total_(total), out_(out), terminal_(terminal), label_(std::move(label)), start_s_(core::wall_clock_s()) {}

void Progress::done_one() {
  std::lock_guard lock(mutex_);
  ++done_;
  draw(false);
}

void Progress::set_done(std::size_t done) {
  std::lock_guard lock(mutex_);
  if (done <= done_) return;
  done_ = std::min(done, total_);
  draw(false);
}

void Progress::finish() {
  std::lock_guard lock(mutex_);
  done_ = total_;
  draw(true);
}

void Progress::draw(bool last) {
  const double t = core::wall_clock_s();
  const double elapsed = t - start_s_;
  const double rate = elapsed > 0 ? static_cast<double>(done_) / elapsed : 0;
  const double eta = rate > 0 ? static_cast<double>(total_ - done_) / rate : 0;
  if (terminal_) {
    if (!last && t - last_draw_s_ < 0.1) return;  // redraw at most ten times a second
    last_draw_s_ = t;
    constexpr int kWidth = 30;
    const int filled = total_ ? static_cast<int>(kWidth * done_ / total_) : kWidth;
    std::fprintf(out_, "\r[%s%s] %zu/%zu points  %.2f points/s  ETA %s   ", std::string(filled, '#').c_str(),
                 std::string(kWidth - filled, '.').c_str(), done_, total_, rate, format_duration(eta).c_str());
    if (last) std::fprintf(out_, "\n");
  } else {
    const std::size_t every = std::max<std::size_t>(1, total_ / 20);
    const bool due = last ? done_ != printed_done_ : done_ >= printed_done_ + every || printed_done_ == kNone;
    if (!due) return;
    printed_done_ = done_;
    std::fprintf(out_, "%s: %zu/%zu points, %.2f points/s, ETA %s\n", label_.c_str(), done_, total_, rate,
                 format_duration(eta).c_str());
  }
  std::fflush(out_);
}

std::vector<PointResult> run_points(const std::vector<GridPoint>& points, const Simulate& simulate, int jobs,
                                    Progress* progress) {
  std::vector<PointResult> results(points.size());
  core::parallel_for(points.size(), jobs, [&](std::size_t i) {
    results[i] = evaluate_point(i, points[i], simulate);
    if (progress) progress->done_one();
  });
  if (progress) progress->finish();
  return results;
}

void mark_pareto(std::vector<PointResult>& results, ParetoX x) {
  std::vector<Objective2> objectives;
  std::vector<std::size_t> owner;
  for (std::size_t i = 0; i < results.size(); ++i) {
    auto& r = results[i];
    r.pareto = false;
    if (!r.feasible) continue;
    double xv = 0;
    if (x == ParetoX::gpus) {
      xv = r.step.at("gpus").get<double>();
    } else if (r.step.contains("cost_per_trillion_tokens_usd")) {
      xv = r.step.at("cost_per_trillion_tokens_usd").get<double>();
    } else {
      continue;
    }
    objectives.push_back({xv, r.step.at("step_time_s").get<double>()});
    owner.push_back(i);
  }
  const auto front = pareto_front(objectives);
  for (std::size_t k = 0; k < front.size(); ++k) results[owner[k]].pareto = front[k];
}

}  // namespace k3::sweep
