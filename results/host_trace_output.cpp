#include "results/host_trace_output.hpp"

#include <fmt/format.h>

#include "core/quantity.hpp"

namespace k3::results {

std::string format_host_trace(const cost::HostTraceProfile& p) {
  std::string out = fmt::format("Host time per module of {}\n", p.source);
  out += fmt::format("{:<28} {:>5} {:>10} {:>13} {:>12} {:>15} {:>13} {:>12}\n", "module", "runs", "kernels/run",
                     "host/launch", "launch call", "device wait/run", "other gap/run", "GPU time/run");
  double kernels = 0;
  double host = 0;
  double wait = 0;
  double gpu = 0;
  for (const auto& m : p.modules) {
    const double runs = m.occurrences;
    out += fmt::format("{:<28} {:>5} {:>10.1f} {:>13} {:>12} {:>15} {:>13} {:>12}\n", m.name, m.occurrences,
                       m.kernels_per_occurrence(), core::format_seconds(m.host_us_per_launch() * 1e-6),
                       core::format_seconds(m.launches > 0 ? m.launch_api_us / m.launches * 1e-6 : 0),
                       core::format_seconds(m.device_wait_us / runs * 1e-6),
                       core::format_seconds(m.gap_us / runs * 1e-6), core::format_seconds(m.gpu_us / runs * 1e-6));
    kernels += m.kernels_per_occurrence();
    host += (m.span_us - m.device_wait_us - m.sync_api_us) / runs;
    wait += (m.device_wait_us + m.sync_api_us) / runs;
    gpu += m.gpu_us / runs;
  }
  out += fmt::format(
      "Every module once: {:.0f} kernels, {} of host time issuing them ({} per kernel), {} waiting on the device, "
      "{} of GPU time.\n",
      kernels, core::format_seconds(host * 1e-6), core::format_seconds(kernels > 0 ? host / kernels * 1e-6 : 0),
      core::format_seconds(wait * 1e-6), core::format_seconds(gpu * 1e-6));
  if (p.launches_outside > 0) out += fmt::format("{} launches fell outside every module and are not counted.\n", p.launches_outside);
  out += fmt::format(
      "Host per launch: the module's wall time on the host less its waits, over its launches. A gap the profiler "
      "left unmarked and longer than {0} is a wait on the device when the op launched last before it ends within {0} "
      "of the host resuming (an assumption of this importer); otherwise framework time.\n",
      core::format_seconds(p.options.resume_within_us * 1e-6));
  return out;
}

}  // namespace k3::results
