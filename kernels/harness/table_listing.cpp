#include "kernels/harness/table_listing.hpp"

#include <fmt/format.h>

#include <map>

namespace k3::kernels {

namespace {

std::string axis_range(const cost::TableAxis& a) {
  const auto number = [](double v) { return fmt::format("{:.6g}", v); };
  if (a.values.size() == 1) return fmt::format("{} {}", a.name, number(a.values.front()));
  return fmt::format("{} {}..{} ({} values)", a.name, number(a.values.front()), number(a.values.back()), a.values.size());
}

}  // namespace

std::string format_kernel_tables(const cost::KernelTables& tables, const std::string& path, bool detailed) {
  std::string out = fmt::format("kernel tables for {} ({}) in {}\n  source: {}\n", tables.gpu, tables.device, path,
                                tables.origin);
  struct Count {
    int tables = 0;
    std::size_t cells = 0;
  };
  std::map<std::string, Count> by_class;
  for (const auto& t : tables.tables) {
    auto& c = by_class[t.op_class];
    ++c.tables;
    c.cells += t.measured_cells();
  }
  for (const auto& [op_class, c] : by_class) {
    out += fmt::format("  {:<24} {:>4} tables, {:>7} measured shapes\n", op_class, c.tables, c.cells);
  }
  if (!detailed) return out;
  for (const auto& t : tables.tables) {
    std::string axes;
    for (const auto& a : t.axes) axes += (axes.empty() ? "" : "; ") + axis_range(a);
    out += fmt::format("\n{}\n  {} measured of {} grid cells: {}\n  from {} ({}), {} of {} rows: {}\n", t.label(),
                       t.measured_cells(), t.latency_us.size(), axes, t.source.file, t.source.framework,
                       t.source.rows_kept, t.source.rows_read, t.source.selection);
  }
  return out;
}

}  // namespace k3::kernels
