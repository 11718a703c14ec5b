// `k3sim trace import TRACE.json --out HOSTPROFILE.json`: host time per annotated module of a PyTorch-profiler
// trace (kernels per module, host time per launch, waits on the device), for calibrating the host.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <memory>
#include <string>

#include "core/error.hpp"
#include "core/json_file.hpp"
#include "core/text_file.hpp"
#include "results/host_trace_output.hpp"
#include "sim/cost/host_trace.hpp"

namespace k3::cli {

namespace {
struct TraceImportOptions {
  std::string trace;
  std::string out;
  cost::HostTraceOptions import;
};
}  // namespace

void attach_trace(CLI::App& command, int& exit_status) {
  command.require_subcommand(1);
  auto opts = std::make_shared<TraceImportOptions>();
  auto* import = command.add_subcommand(
      "import", "Read a PyTorch-profiler (Kineto) Chrome trace: per annotated module, kernels, host time per launch, "
                "waits on the device");
  import->add_option("trace", opts->trace, "Chrome trace JSON (torch.profiler export_chrome_trace)")->required();
  import->add_option("--out", opts->out, "write the host profile as JSON to this file");
  import->add_option("--resume-within-us", opts->import.resume_within_us,
                     "an unmarked host gap longer than this many microseconds is a wait on the device when "
                     "the op launched last before it ends within as long of the host resuming (default 100)");
  import->callback([opts, &exit_status] {
    if (!(opts->import.resume_within_us > 0)) {
      throw core::InputError({"--resume-within-us", "", 0}, fmt::format("must be > 0, got {}", opts->import.resume_within_us),
                             "a positive number of microseconds");
    }
    const auto trace = core::read_json_file(opts->trace, "a Chrome trace JSON (traceEvents)");
    const auto profile = cost::import_host_trace(trace, opts->trace, opts->import);
    fmt::print("{}", results::format_host_trace(profile));
    if (!opts->out.empty()) {
      core::write_text_file(opts->out, cost::to_json(profile).dump(2) + "\n", "--out");
      fmt::print("Wrote {}\n", opts->out);
    }
    exit_status = 0;
  });
}

}  // namespace k3::cli
