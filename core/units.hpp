#pragma once
// Units used across k3sim.
//
// Simulated time is an integer count of picoseconds (SimTime). Integer time makes event order exact and
// runs bit-for-bit repeatable; 1 ps resolves a 64-byte transfer at 64 TB/s, and int64 covers 106 days.
// Quantities that are averages or rates (bytes of expected traffic, FLOPs, bandwidth) are doubles whose
// unit is in the alias name, so a signature reads `Bytes size, BytesPerSec rate`.
#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>
#include <ostream>

#include "core/error.hpp"

namespace k3::core {

using Bytes = double;         // bytes (may be fractional: expected traffic)
using BytesPerSec = double;   // bytes per second (1 GB/s = 1e9 B/s)
using Flops = double;         // floating-point operations (a multiply-add counts 2)
using FlopsPerSec = double;   // floating-point operations per second
using Seconds = double;       // wall or simulated seconds as a real number

inline constexpr double kKiB = 1024.0;
inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kGB = 1e9;
inline constexpr double kTB = 1e12;

class SimTime {
 public:
  using Rep = std::int64_t;
  static constexpr Rep kPerSecond = 1'000'000'000'000;  // picoseconds

  constexpr SimTime() = default;
  static constexpr SimTime from_ps(Rep ps) { return SimTime(ps); }
  static constexpr SimTime from_ns(double ns) { return from_seconds(ns * 1e-9); }
  static constexpr SimTime from_us(double us) { return from_seconds(us * 1e-6); }
  // Rounds to the nearest picosecond, but a positive duration never collapses to zero (an effect never
  // happens at the same instant as its cause unless the model says so).
  // A span beyond the clock's 106 days (or not a number) is a bug upstream: steps are refused before they get
  // here (train::check_step_fits_clock), and a cast out of range would be undefined.
  static constexpr SimTime from_seconds(double s) {
    const double ps = s * static_cast<double>(kPerSecond);
    if (!(std::abs(ps) < 9.2e18)) throw InternalError("a simulated time of " + std::to_string(s) + " s is beyond the clock's 106 days");
    Rep r = static_cast<Rep>(ps + (ps >= 0 ? 0.5 : -0.5));
    if (r == 0 && ps > 0) r = 1;
    return SimTime(r);
  }
  static constexpr SimTime zero() { return SimTime(0); }
  static constexpr SimTime max() { return SimTime(std::numeric_limits<Rep>::max()); }

  constexpr Rep ps() const { return ps_; }
  constexpr double seconds() const { return static_cast<double>(ps_) / static_cast<double>(kPerSecond); }

  constexpr SimTime operator+(SimTime o) const { return SimTime(ps_ + o.ps_); }
  constexpr SimTime operator-(SimTime o) const { return SimTime(ps_ - o.ps_); }
  constexpr SimTime& operator+=(SimTime o) { ps_ += o.ps_; return *this; }
  constexpr SimTime& operator-=(SimTime o) { ps_ -= o.ps_; return *this; }
  constexpr auto operator<=>(const SimTime&) const = default;

 private:
  constexpr explicit SimTime(Rep ps) : ps_(ps) {}
  Rep ps_ = 0;
};

// Printed in seconds with the unit, e.g. "1.5e-06 s" (used by test failure messages and logs).
inline std::ostream& operator<<(std::ostream& os, SimTime t) { return os << t.seconds() << " s"; }

// Time to move `bytes` at `rate`, as SimTime.
inline SimTime transfer_time(Bytes bytes, BytesPerSec rate) { return SimTime::from_seconds(bytes / rate); }

}  // namespace k3::core
