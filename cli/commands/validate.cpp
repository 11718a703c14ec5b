// `k3sim validate [--json] [--report out.html] [--data DIR] [--scenarios DIR]`: run the published validation cases of
// validate/data and print predicted against published with the signed error of each.
// `k3sim validate --import-data DIR --out DIR`: derive validate/data from shared/validation's originals.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <memory>

#include <unistd.h>

#include "core/error.hpp"
#include "core/text_file.hpp"
#include "core/version.hpp"
#include "reports/sections/validation.hpp"
#include "validate/published_data.hpp"
#include "validate/validation.hpp"

namespace k3::cli {

namespace {

struct ValidateOptions {
  std::string data_dir;
  std::string scenario_dir;
  bool json = false;
  bool quiet = false;  // no progress on stderr
  bool markdown = false;
  std::string write_discrepancy;
  std::string report;
  int samples = 64;
  std::string import_from;
  std::string import_to;
};

int validate(const ValidateOptions& o) {
  if (!o.import_from.empty() || !o.import_to.empty()) {
    if (o.import_from.empty() || o.import_to.empty()) {
      throw core::InputError({"--import-data", "", 0}, "--import-data and --out go together",
                             "--import-data SHARED_VALIDATION_DIR --out validate/data");
    }
    for (const auto& path : validate::import_published_data(o.import_from, o.import_to)) fmt::print("wrote {}\n", path);
    return 0;
  }
  auto paths = validate::default_validation_paths();
  if (!o.data_dir.empty()) paths.data_dir = o.data_dir;
  if (!o.scenario_dir.empty()) paths.scenario_dir = o.scenario_dir;
  paths.band_samples = o.samples;
  paths.progress = stderr;
  paths.progress_mode = core::progress_mode(o.quiet, ::isatty(STDERR_FILENO) != 0, false);
  const auto report = validate::run_validation(paths);
  const auto json = validate::validation_to_json(report);
  if (!o.write_discrepancy.empty()) {
    core::write_text_file(o.write_discrepancy, results::discrepancy_table_csv(validate::discrepancy_table(report)),
                          "--write-discrepancy");
  }
  if (!o.report.empty()) {
    reports::RunInfo info;
    info.command = "k3sim validate";
    info.version = std::string(core::version_string());
    info.scenario_name = "Data folders";
    info.scenario_text = "data: " + paths.data_dir + "\nscenarios: " + paths.scenario_dir + "\n";
    reports::write_validation_report(o.report, json, info);
  }
  if (o.json) {
    fmt::print("{}\n", json.dump(2));
  } else if (o.markdown) {
    fmt::print("{}", validate::families_to_markdown(report));
  } else {
    fmt::print("{}", validate::validation_to_text(report));
  }
  return 0;
}

}  // namespace

void attach_validate(CLI::App& command, int& exit_status) {
  auto o = std::make_shared<ValidateOptions>();
  auto* sub = &command;
  sub->add_option("--data", o->data_dir, "Folder of the published CSVs (default: <source>/validate/data)");
  sub->add_option("--import-data", o->import_from,
                  "Derive the shipped tables from shared/validation's originals in this folder");
  sub->add_option("--out", o->import_to, "Folder --import-data writes to (validate/data)");
  sub->add_option("--scenarios", o->scenario_dir, "Folder of the validation scenarios (default: <source>/scenarios)");
  sub->add_flag("--json", o->json, "Print the cases as JSON");
  sub->add_flag("-q,--quiet", o->quiet, "No progress on stderr (shown on a terminal)");
  sub->add_option("--write-discrepancy", o->write_discrepancy,
                  "Write each quantity's model discrepancy, fitted on every family, to this file (run and compare "
                  "read validate/data/model-discrepancy.csv)");
  sub->add_flag("--markdown", o->markdown, "Print the per-family table as README's trust section carries it");
  sub->add_option("--samples", o->samples, "Samples of each case's uncertainty band (default 64; 0: no bands)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--report", o->report, "Write a self-contained HTML report to this file");
  sub->callback([o, &exit_status] { exit_status = validate(*o); });
}

}  // namespace k3::cli
