#include "core/progress.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/wall_clock.hpp"

namespace k3::core {

ProgressMode progress_mode(bool quiet, bool terminal, bool lines_elsewhere) {
  if (quiet) return ProgressMode::quiet;
  if (terminal) return ProgressMode::bar;
  return lines_elsewhere ? ProgressMode::lines : ProgressMode::quiet;
}

std::string format_duration(double s) {
  if (s < 60) return fmt::format("{:.0f} s", s);
  if (s < 3600) return fmt::format("{:.0f} min {:02.0f} s", std::floor(s / 60), std::fmod(s, 60));
  return fmt::format("{:.0f} h {:02.0f} min", std::floor(s / 3600), std::fmod(s / 60, 60));
}

Progress::Progress(std::size_t total, std::FILE* out, ProgressMode mode, std::string label, std::string unit)
    : total_(total), out_(out), mode_(out == nullptr ? ProgressMode::quiet : mode), label_(std::move(label)),
      unit_(std::move(unit)), start_s_(wall_clock_s()) {}

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

void Progress::doing(std::string what) {
  std::lock_guard lock(mutex_);
  doing_ = std::move(what);
  if (mode_ == ProgressMode::bar) last_draw_s_ = -1;  // show the new part at once
  draw(false);
}

void Progress::finish() {
  std::lock_guard lock(mutex_);
  done_ = total_;
  doing_.clear();
  draw(true);
}

void Progress::draw(bool last) {
  if (mode_ == ProgressMode::quiet) return;
  const double t = wall_clock_s();
  const double elapsed = t - start_s_;
  const double rate = elapsed > 0 ? static_cast<double>(done_) / elapsed : 0;
  // No ETA before the first unit is done: a rate of nothing says nothing.
  const std::string eta = done_ > 0 && rate > 0 ? format_duration(static_cast<double>(total_ - done_) / rate) : "-";
  const std::string now = doing_.empty() ? "" : ", " + doing_;
  if (mode_ == ProgressMode::bar) {
    if (!last && last_draw_s_ >= 0 && t - last_draw_s_ < 0.1) return;  // redraw at most ten times a second
    last_draw_s_ = t;
    constexpr int kWidth = 30;
    const int filled = total_ ? static_cast<int>(kWidth * done_ / total_) : kWidth;
    // \x1b[K clears what a longer line before left.
    std::fprintf(out_, "\r%s [%s%s] %zu/%zu %s, %s elapsed, ETA %s%s\x1b[K", label_.c_str(), std::string(filled, '#').c_str(),
                 std::string(kWidth - filled, '.').c_str(), done_, total_, unit_.c_str(), format_duration(elapsed).c_str(),
                 eta.c_str(), now.c_str());
    if (last) std::fprintf(out_, "\n");
  } else {
    const std::size_t every = std::max<std::size_t>(1, total_ / 20);
    const bool due = last ? done_ != printed_done_ : done_ >= printed_done_ + every || printed_done_ == kNone;
    if (!due) return;
    printed_done_ = done_;
    std::fprintf(out_, "%s: %zu/%zu %s, %.2f %s/s, ETA %s\n", label_.c_str(), done_, total_, unit_.c_str(), rate,
                 unit_.c_str(), eta.c_str());
  }
  std::fflush(out_);
}

}  // namespace k3::core
