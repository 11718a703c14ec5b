// `k3sim profile diff a.json b.json [--json]`: what changed between two calibration profiles.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <memory>
#include <string>

#include "kernels/harness/profile_diff.hpp"
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
}

}  // namespace k3::cli
