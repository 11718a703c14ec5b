// `k3sim validate [--json] [--data DIR] [--scenarios DIR]`: run the published validation cases of
// shared/validation and print predicted against published with the signed error of each.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <memory>

#include "sim/plan/validation.hpp"

namespace k3::cli {

namespace {

struct ValidateOptions {
  std::string data_dir;
  std::string scenario_dir;
  bool json = false;
};

int validate(const ValidateOptions& o) {
  auto paths = plan::default_validation_paths();
  if (!o.data_dir.empty()) paths.data_dir = o.data_dir;
  if (!o.scenario_dir.empty()) paths.scenario_dir = o.scenario_dir;
  const auto report = plan::run_validation(paths);
  if (o.json) {
    fmt::print("{}\n", plan::validation_to_json(report).dump(2));
  } else {
    fmt::print("{}", plan::validation_to_text(report));
  }
  return 0;
}

}  // namespace

void attach_validate(CLI::App& app, int& exit_status) {
  auto o = std::make_shared<ValidateOptions>();
  auto* sub = app.add_subcommand("validate", "Compare predictions with published measurements (DeepSeek-V3, "
                                             "Megatron-LM SC21 Table 1, DeepEP)");
  sub->add_option("--data", o->data_dir, "Folder of the published CSVs (default: <source>/../shared/validation)");
  sub->add_option("--scenarios", o->scenario_dir, "Folder of the validation scenarios (default: <source>/scenarios)");
  sub->add_flag("--json", o->json, "Print the cases as JSON");
  sub->callback([o, &exit_status] { exit_status = validate(*o); });
}

}  // namespace k3::cli
