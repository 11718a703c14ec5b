// `k3sim report diff a.json b.json --report out.html [--names A,B] [--json]`: the review page of `k3sim compare`
// for two saved `k3sim run --json` results that were not one scenario (another commit, another cluster).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <memory>
#include <string>

#include "core/error.hpp"
#include "core/json_file.hpp"
#include "core/version.hpp"
#include "reports/sections/review.hpp"
#include "sweep/comparison.hpp"

namespace k3::cli {

namespace {

struct ReportDiffOptions {
  std::string a;
  std::string b;
  std::vector<std::string> names;
  std::string report;
  bool json = false;
};

// A run's --json, checked for the keys the comparison reads, so that a wrong file is bad input (exit 2).
nlohmann::json load_run(const std::string& path) {
  auto j = core::read_json_file(path, "the output of `k3sim run --json`");
  for (const char* key : {"step_time_s", "breakdown", "memory_per_gpu", "memory_bytes_per_gpu", "hbm_bytes", "links",
                          "tokens_per_s", "mfu", "provenance", "assumptions", "gpu_hours_per_trillion_tokens"}) {
    if (!j.is_object() || !j.contains(key))
      throw core::InputError({path, key, 0}, "missing: not a `k3sim run --json` result", "the output of `k3sim run --json`");
  }
  return j;
}

int report_diff(const ReportDiffOptions& o) {
  if (!o.names.empty() && o.names.size() != 2)
    throw core::InputError({"--names", "", 0}, fmt::format("{} names given", o.names.size()), "two names, A,B");
  const auto a = load_run(o.a), b = load_run(o.b);
  const std::string name_a = o.names.empty() ? a.value("scenario", "a") + " (a)" : o.names[0];
  const std::string name_b = o.names.empty() ? b.value("scenario", "b") + " (b)" : o.names[1];
  nlohmann::json entries = nlohmann::json::array({sweep::variant_entry(name_a, o.a, a), sweep::variant_entry(name_b, o.b, b)});
  // Two runs of different scenarios share no paired band samples: the verdict reads each band alone.
  const auto j = sweep::comparison_json(entries, {});
  if (!o.report.empty()) {
    reports::RunInfo info;
    info.command = fmt::format("k3sim report diff {} {}", o.a, o.b);
    info.version = std::string(core::version_string());
    info.scenario_name = o.a + " against " + o.b;
    reports::write_compare_report(o.report, j, {}, info);
  }
  if (o.json || o.report.empty()) fmt::print("{}\n", j.dump(2));
  return 0;
}

}  // namespace

void attach_report(CLI::App& command, int& exit_status) {
  auto* sub = &command;
  sub->require_subcommand(1);
  auto o = std::make_shared<ReportDiffOptions>();
  auto* diff = sub->add_subcommand("diff", "The review page of two saved `k3sim run --json` results side by side");
  diff->add_option("a", o->a, "first run's --json output (the baseline)")->required();
  diff->add_option("b", o->b, "second run's --json output")->required();
  diff->add_option("--names", o->names, "labels of the two runs, A,B (default: their scenario names)")->delimiter(',');
  diff->add_option("--report", o->report, "write the HTML review page to this file");
  diff->add_flag("--json", o->json, "print the comparison as JSON (the default without --report)");
  diff->callback([o, &exit_status] { exit_status = report_diff(*o); });
}

}  // namespace k3::cli
