// `k3sim profile diff a.json b.json [--json]`: what changed between two calibration profiles.
// `k3sim profile show TABLES.json`: the measured kernel tables of one GPU, each with its source and shape ranges.
// `k3sim profile compare PROFILE.json TABLES.json`: a calibration run's kernels against the tables' rows.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <memory>
#include <string>

#include "kernels/harness/profile_diff.hpp"
#include "kernels/harness/table_comparison.hpp"
#include "kernels/harness/table_listing.hpp"
#include "sim/cost/kernel_tables.hpp"
#include "sim/cost/calibration_profile.hpp"

namespace k3::cli {

namespace {
struct ProfileDiffOptions {
  std::string a;
  std::string b;
  bool json = false;
};
}  // namespace

void attach_profile(CLI::App& command, int& exit_status) {
  auto* sub = &command;
  sub->require_subcommand(1);
  auto opts = std::make_shared<ProfileDiffOptions>();
  auto* diff = sub->add_subcommand("diff", "Show peaks and efficiency curves that changed from a to b");
  diff->add_option("a", opts->a, "first profile JSON")->required();
  diff->add_option("b", opts->b, "second profile JSON")->required();
  diff->add_flag("--json", opts->json, "print the difference as JSON");
  diff->callback([opts, &exit_status] {
    const auto a = cost::CalibrationProfile::load(opts->a);
    const auto b = cost::CalibrationProfile::load(opts->b);
    const auto d = kernels::diff_profiles(a, b);
    fmt::print("{}", opts->json ? d.dump(2) + "\n" : kernels::format_profile_diff(d));
    exit_status = 0;
  });
  auto compare_paths = std::make_shared<std::pair<std::string, std::string>>();
  auto* compare = sub->add_subcommand("compare", "Compare a calibration run's kernels with the measured tables' rows "
                                                 "for the same shapes (a Markdown table)");
  compare->add_option("profile", compare_paths->first, "calibration profile JSON (k3sim calibrate)")->required();
  compare->add_option("tables", compare_paths->second, "kernel table JSON of the same GPU")->required();
  compare->callback([compare_paths, &exit_status] {
    const auto profile = cost::CalibrationProfile::load(compare_paths->first);
    const auto tables = cost::KernelTables::load(compare_paths->second);
    fmt::print("k3sim's kernels ({}, {}) against {} ({}):\n\n{}", profile.device().name, profile.created_utc(),
               compare_paths->second, tables.origin,
               kernels::format_comparison(kernels::compare_with_tables(profile, tables)));
    exit_status = 0;
  });
  auto show_path = std::make_shared<std::string>();
  auto* show = sub->add_subcommand("show", "List a kernel table file's tables with their sources and shape ranges");
  show->add_option("tables", *show_path, "kernel table JSON (kernels/profiles/aiconfigurator/<gpu>.json)")->required();
  show->callback([show_path, &exit_status] {
    fmt::print("{}", kernels::format_kernel_tables(cost::KernelTables::load(*show_path), *show_path, true));
    exit_status = 0;
  });
}

}  // namespace k3::cli
