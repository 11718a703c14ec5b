#pragma once
// Kernel latencies measured per shape on real GPUs, in the compact form the cost model reads: each table is one
// kernel at fixed categorical keys (dtype, head dim, expert count, ...) over a grid of numeric shape axes (m, n,
// k; batch, sequence, heads; tokens), one latency per grid cell in microseconds, cells the source did not measure
// empty. `k3sim calibrate --import-kernel-tables` makes them from AIConfigurator's published database
// (sim/cost/kernel_table_import.hpp); the six shipped files are in kernels/profiles/aiconfigurator/.
//
// A look-up interpolates multilinearly in log(axis value) and log(latency) between the grid points around the
// shape: kernel time is close to a power law of each size between measured points. Outside an axis's measured
// range the rule is, and the result is flagged `extrapolated`:
// - below the smallest measured value, that value's latency: a kernel's time floors at small sizes (launch,
//   one wave), so less work is never priced faster than the smallest measurement;
// - above the largest, the largest value's latency times the ratio of sizes: a GPU already full at the largest
//   measured size keeps its rate (the last segment's slope is not continued: one slow or fast top row would then
//   be amplified, as the GEMM table's n = 65,536 row would be 7x at the 163,840-wide output head).
// A cell of the surrounding box that was not measured makes the look-up return nothing, so that the caller
// prices the op another way and says so; a table never invents a measurement.
#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace k3::cost {

struct TableAxis {
  std::string name;            // the source column ("m", "isl", "num_tokens", ...)
  std::vector<double> values;  // strictly increasing, positive
};

// Where a table's numbers come from, and what of the source file it kept.
struct TableSource {
  std::string file;       // path inside the source folder, e.g. "h200_sxm/gemm/sglang/0.5.14/gemm_perf.csv"
  std::string framework;  // "SGLang 0.5.14"
  std::string selection;  // the rows kept, in words
  int rows_read = 0;      // data rows in the file
  int rows_kept = 0;      // rows that went into this table
};

struct TableLookup {
  double latency_us = 0;
  bool extrapolated = false;  // some axis was outside its measured range (see the rule above)
};

class KernelTable {
 public:
  std::string op_class;                     // "gemm", "moe", "kda", "attention_context", "mla_context", ...
  std::map<std::string, std::string> keys;  // categorical columns at their values, e.g. {"gemm_dtype": "fp8"}
  std::vector<TableAxis> axes;
  std::vector<double> latency_us;           // row-major over axes (the last axis fastest); NaN = not measured
  TableSource source;

  // `point` has one value per axis, in axes' order; nullopt when a cell of the surrounding box is empty.
  std::optional<TableLookup> latency(std::span<const double> point) const;
  std::size_t measured_cells() const;
  // The flat index of a grid cell from one index per axis.
  std::size_t cell(std::span<const std::size_t> index) const;
  // "gemm gemm_dtype=bfloat16 kernel_source=sglang_torch_linear": the table's name in listings and errors.
  std::string label() const;
  // A key that holds a number ("hidden_size": "7168"), read as one.
  double key_number(const std::string& key) const { return std::stod(keys.at(key)); }
};

class KernelTables {
 public:
  static constexpr std::string_view kFormat = "k3sim-kernel-tables";
  static constexpr int kVersion = 1;

  std::string gpu;     // k3sim's GPU type ("H200-SXM")
  std::string device;  // the source's device name ("NVIDIA H200")
  std::string origin;  // repository, commit, folder and licence of the source database
  std::vector<KernelTable> tables;

  // Throws core::InputError naming the file and the key on a missing file, bad JSON or a bad value.
  static KernelTables load(const std::string& path);
  static KernelTables from_json(const nlohmann::json& j, const std::string& file);
  nlohmann::json to_json() const;
  std::string dump() const;  // to_json as the shipped files hold it: one table per line, stable order
  void save(const std::string& path) const;

  // The table of `op_class` whose keys are exactly `keys`; nullptr when there is none. Call index() once after
  // building or changing `tables` (load and from_json do).
  const KernelTable* find(std::string_view op_class, const std::map<std::string, std::string>& keys) const;
  // Every table of `op_class` whose keys include `subset`, in file order.
  std::vector<const KernelTable*> all(std::string_view op_class, const std::map<std::string, std::string>& subset) const;
  void index();

 private:
  std::unordered_map<std::string, std::size_t> by_key_;
};

}  // namespace k3::cost
