#include "results/model_discrepancy.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "core/csv_text.hpp"
#include "core/error.hpp"
#include "core/text_file.hpp"

namespace k3::results {

train::Quantiles widen_by_discrepancy(const train::Quantiles& mechanism, double sigma_log) {
  const double d = kZ90 * sigma_log;
  const double below = std::log(mechanism.p50 / mechanism.p10);
  const double above = std::log(mechanism.p90 / mechanism.p50);
  return {mechanism.p50 * std::exp(-std::hypot(below, d)), mechanism.p50,
          mechanism.p50 * std::exp(std::hypot(above, d))};
}

std::string discrepancy_table_csv(const std::vector<QuantityDiscrepancy>& rows) {
  std::string out =
      "# Model discrepancy per predicted quantity: the spread (standard deviation) of ln(published / predicted) over the\n"
      "# rows of validate/data, each family (published table) weighing the same. Derived by `k3sim validate --samples 0\n"
      "# --write-discrepancy validate/data/model-discrepancy.csv` (validate/model_discrepancy.hpp); read by run and compare.\n"
      "quantity,sigma_log,pooled,fitted_on\n";
  for (const auto& r : rows) {
    out += fmt::format("{},{:.6f},{},{}\n", r.quantity, r.fit.sigma_log, r.fit.pooled ? "yes" : "no",
                       fmt::join(r.fit.fitted_on, ";"));
  }
  return out;
}

std::vector<QuantityDiscrepancy> read_discrepancy_table(const std::string& path) {
  const auto csv = core::parse_csv_text(
      core::read_text_file(path, "validate/data/model-discrepancy.csv as `k3sim validate --write-discrepancy` writes it"),
      path);
  auto column = [&](const std::string& name) {
    for (std::size_t i = 0; i < csv.header.size(); ++i) {
      if (csv.header[i] == name) return i;
    }
    throw core::InputError({path, name, 1}, "column missing", "quantity,sigma_log,pooled,fitted_on");
  };
  const std::size_t q = column("quantity"), s = column("sigma_log"), p = column("pooled"), f = column("fitted_on");
  std::vector<QuantityDiscrepancy> rows;
  for (std::size_t r = 0; r < csv.rows.size(); ++r) {
    QuantityDiscrepancy d;
    d.quantity = csv.rows[r][q];
    d.fit.sigma_log = core::csv_number(csv.rows[r][s], path, "sigma_log", csv.lines[r]);
    if (!(d.fit.sigma_log >= 0)) {
      throw core::InputError({path, "sigma_log", csv.lines[r]}, "a negative spread", "a number >= 0");
    }
    if (csv.rows[r][p] != "yes" && csv.rows[r][p] != "no") {
      throw core::InputError({path, "pooled", csv.lines[r]}, "'" + csv.rows[r][p] + "'", "yes or no");
    }
    d.fit.pooled = csv.rows[r][p] == "yes";
    const std::string& families = csv.rows[r][f];
    for (std::size_t from = 0; from < families.size();) {
      const auto semi = std::min(families.find(';', from), families.size());
      d.fit.fitted_on.push_back(families.substr(from, semi - from));
      from = semi + 1;
    }
    rows.push_back(std::move(d));
  }
  return rows;
}

const QuantityDiscrepancy& discrepancy_of(const std::vector<QuantityDiscrepancy>& table, const std::string& quantity,
                                          const std::string& path) {
  for (const auto& r : table) {
    if (r.quantity == quantity) return r;
  }
  throw core::InputError({path, "quantity", 0}, "no row for '" + quantity + "'",
                         "a table written by `k3sim validate --write-discrepancy`");
}

}  // namespace k3::results
