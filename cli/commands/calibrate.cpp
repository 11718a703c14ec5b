// `k3sim calibrate --backend cuda|cpu [--ops a,b] [--quick] --out profile.json`: run the probes and K3's
// operators on the chosen backend (each validated against its CPU reference before timing) and write a
// calibration profile the cost model reads. `k3sim calibrate --merge a.json b.json --out profile.json` joins
// profiles of one device calibrated op by op into one. `k3sim calibrate --import-kernel-tables DIR --gpu NAME --out
// tables.json` imports measured kernel tables (AIConfigurator's database) for one GPU.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "kernels/harness/backend.hpp"
#include "kernels/harness/calibrate.hpp"
#include "kernels/harness/table_listing.hpp"
#include "sim/cost/kernel_table_import.hpp"
#include "core/error.hpp"

namespace k3::cli {

namespace {

struct CalibrateOptions {
  std::string backend;
  std::vector<std::string> merge;
  std::string import_dir;
  std::string gpu;
  std::vector<std::string> ops;
  bool quick = false;
  std::string out;
  bool json = false;
};

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void run_import(const CalibrateOptions& o) {
  if (o.gpu.empty()) throw core::InputError({"--gpu", "", 0}, "--import-kernel-tables needs --gpu", "a GPU type, e.g. H200-SXM");
  const auto tables = cost::import_aiconfigurator(o.import_dir, o.gpu);
  tables.save(o.out);
  fmt::print("{}", kernels::format_kernel_tables(tables, o.out, false));
}

void run_calibrate(const CalibrateOptions& o) {
  const int modes = !o.backend.empty() + !o.merge.empty() + !o.import_dir.empty();
  if (modes != 1) {
    throw core::InputError({"--backend", "", 0}, "give one of --backend, --merge and --import-kernel-tables",
                           "--backend cuda|cpu, --merge FILE..., or --import-kernel-tables DIR --gpu NAME");
  }
  if (!o.import_dir.empty()) return run_import(o);
  const auto profile = [&] {
    if (!o.merge.empty()) return kernels::merge_profiles(o.merge);
    auto backend = o.backend == "cuda" ? kernels::make_cuda_backend() : kernels::make_cpu_backend();
    return kernels::calibrate(*backend, o.ops, o.quick, utc_now());
  }();
  profile.save(o.out);
  if (o.json) {
    fmt::print("{}\n", profile.to_json().dump(2));
    return;
  }
  fmt::print("calibrated {} ({}) -> {}\n", profile.device().name, profile.device().backend, o.out);
  fmt::print("  HBM copy peak: {:.4g} GB/s\n", profile.hbm_bytes_per_s() / 1e9);
  for (const char* dtype : {"bf16", "fp8", "fp32"}) {
    if (profile.has_gemm_peak(dtype)) fmt::print("  GEMM peak {}: {:.4g} TFLOP/s\n", dtype, profile.gemm_flops_per_s(dtype) / 1e12);
  }
  for (const auto& name : profile.op_classes()) {
    const auto& c = profile.curve(name);
    fmt::print("  {:<20} {} points, efficiency {:.1f}% .. {:.1f}% of {} (work {:.3g} .. {:.3g} {})\n", name,
               c.points.size(), 100.0 * c.points.front().efficiency, 100.0 * c.points.back().efficiency, c.peak,
               c.points.front().work, c.points.back().work, c.unit == cost::WorkUnit::kFlops ? "FLOP" : "B");
  }
}

}  // namespace

void attach_calibrate(CLI::App& command, int& exit_status) {
  auto opts = std::make_shared<CalibrateOptions>();
  auto* sub = &command;
  sub->add_option("--backend", opts->backend, "cuda (the GPU kernels) or cpu (the CPU references)")
      ->check(CLI::IsMember({"cuda", "cpu"}));
  sub->add_option("--merge", opts->merge, "profiles of one device to join into --out (instead of measuring)")
      ->check(CLI::ExistingFile);
  sub->add_option("--import-kernel-tables", opts->import_dir,
                  "a measured kernel database (shared/calibration/aiconfigurator) to import for --gpu into --out");
  sub->add_option("--gpu", opts->gpu, "with --import-kernel-tables: the GPU type (H200-SXM, or the database's h200_sxm)");
  sub->add_option("--ops", opts->ops, "operators to measure (default all; probes always run)")->delimiter(',');
  sub->add_flag("--quick", opts->quick, "a small shape sweep and fewer repetitions");
  sub->add_option("--out", opts->out, "profile JSON to write")->required();
  sub->add_flag("--json", opts->json, "print the profile JSON to stdout");
  sub->callback([opts, &exit_status] {
    run_calibrate(*opts);
    exit_status = 0;
  });
}

}  // namespace k3::cli
