#include "tests/layering/floors.hpp"

#include <algorithm>
#include <fstream>
#include <optional>

namespace k3::layering {

const std::vector<Floor>& floors() {
  // Levels: whole numbers are DESIGN.md's floors; a fraction orders folders within a floor where one
  // builds on the other (net on engine, balancing on routing on model, consumers on results).
  static const std::vector<Floor> table{
      {"core", 1, "units (SimTime ps), errors, strict YAML/JSON input, files, RNG, parallel_for, version"},
      {"model", 2, "ModelSpec, presets, config.json import, ops, totals, memory, KV cache"},
      {"topologies", 2, "Boost.Graph topology, fabrics, routes, analysis, presets, GPU catalogue"},
      {"model/routing", 2.1, "token routing, expert placement, all-to-all traffic"},
      {"model/balancing", 2.2, "load balancers (Quantile Balancing, sign-SGD), MaxVio, balancer states"},
      {"sim/engine", 3, "event queue, Simulator, the model interface"},
      {"sim/net", 3.1, "max-min solver, network models (registered by name), collectives"},
      {"oracle", 3.2, "SimGrid as a test oracle and hand-built fabrics (tests and benchmarks only)"},
      {"sim/cost", 4, "op -> seconds: roofline, efficiencies, FP8 rate tables, calibration profile"},
      {"sim/parallel", 4, "rank mapping, stage split, pipeline schedules (registered by name)"},
      {"sim/workload", 5, "per-pass step lists: dense ops, MoE sampling, collectives"},
      {"kernels", 5, "CUDA kernels with CPU references and tolerances, calibration harness"},
      {"sim/exec", 6, "replays a pass, and runs the step graph, on the engine and a network model"},
      {"sim/train", 7, "one training step: schedule over passes, DP phase, optimizer, memory"},
      {"sim/serve", 7, "serving: request stream, iteration costs, KV capacity, the serving simulation"},
      {"sim/reliability", 7, "a whole training run under interruptions: failure rates, the run's timeline, goodput"},
      {"sim/input", 8, "Scenario: parsed once, resolved once into a step's typed inputs; size limits"},
      {"results", 9, "one writer per result: text, JSON, trace"},
      {"sweep", 9.1, "variants, design-space grids, Pareto front, thread and MPI runners"},
      {"validate", 9.1, "predictions against the published measurements of shared/validation"},
      {"reports", 9.2, "self-contained HTML reports with inline SVG charts"},
      {"cli", 10, "the k3sim executable: a table of subcommands"},
      {"bench", 11, "Google Benchmark programs"},
      {"tests", 12, "GoogleTest suites, golden outputs, fuzzing"},
  };
  return table;
}

const Floor* floor_of(std::string_view path) {
  const Floor* best = nullptr;
  for (const auto& f : floors()) {
    const bool inside = path.size() > f.folder.size() && path.substr(0, f.folder.size()) == f.folder &&
                        path[f.folder.size()] == '/';
    if (inside && (best == nullptr || f.folder.size() > best->folder.size())) best = &f;
  }
  return best;
}

namespace {

// The target of a `#include "..."` line, or nothing for any other line (system includes too). Read by hand:
// std::regex trips GCC 12's maybe-uninitialized warning under the sanitizers.
std::optional<std::string> quoted_include(std::string_view line) {
  const auto skip_blanks = [&] {
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  };
  skip_blanks();
  if (!line.starts_with('#')) return std::nullopt;
  line.remove_prefix(1);
  skip_blanks();
  if (!line.starts_with("include")) return std::nullopt;
  line.remove_prefix(7);
  skip_blanks();
  if (!line.starts_with('"')) return std::nullopt;
  line.remove_prefix(1);
  const auto end = line.find('"');
  if (end == std::string_view::npos) return std::nullopt;
  return std::string(line.substr(0, end));
}

bool is_source(const std::filesystem::path& p) {
  static const std::vector<std::string> exts{".cpp", ".hpp", ".cu", ".cuh", ".h", ".cc", ".in"};
  return std::find(exts.begin(), exts.end(), p.extension().string()) != exts.end();
}

bool skipped_folder(const std::string& name) {
  return name == ".git" || name == "build" || name == "out" || name == "seeds" || name == "regressions" ||
         name == "fixtures" || name.starts_with(".");
}

void check_file(const std::filesystem::path& root, const std::filesystem::path& file, std::vector<Violation>& out) {
  const std::string rel = std::filesystem::relative(file, root).generic_string();
  const Floor* own = floor_of(rel);
  std::ifstream in(file);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const auto included = quoted_include(line);
    if (!included) continue;
    const std::string& inc = *included;
    if (inc.find('/') == std::string::npos) continue;  // a generated header beside the file (version.cpp.in)
    const Floor* target = floor_of(inc);
    if (target == nullptr) {
      out.push_back({rel, n, inc, "the folder is not on any floor of tests/layering/floors.cpp"});
    } else if (own == nullptr) {
      continue;  // a file outside the floors (none today) may include any floor
    } else if (target == own) {
      continue;
    } else if (target->level >= own->level) {
      out.push_back({rel, n, inc,
                     std::string(own->folder) + " (floor " + std::to_string(own->level).substr(0, 3) +
                         ") may include only lower floors, and " + std::string(target->folder) + " is on floor " +
                         std::to_string(target->level).substr(0, 3)});
    }
  }
}

}  // namespace

std::vector<std::filesystem::path> files_under(const std::filesystem::path& root,
                                               bool (*keep)(const std::filesystem::path&)) {
  std::vector<std::filesystem::path> files;
  for (auto it = std::filesystem::recursive_directory_iterator(root); it != std::filesystem::recursive_directory_iterator();
       ++it) {
    if (it->is_directory() && skipped_folder(it->path().filename().string())) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && keep(it->path())) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<Violation> find_violations(const std::filesystem::path& root) {
  std::vector<Violation> out;
  for (const auto& f : files_under(root, is_source)) check_file(root, f, out);
  return out;
}

}  // namespace k3::layering
