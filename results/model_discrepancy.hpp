#pragma once
// The model-discrepancy term of a band (issue 44): how far k3sim's predictions have landed from published
// measurements, as a log-normal spread around the prediction. `k3sim validate` fits it (validate/model_discrepancy.hpp)
// and writes one row per predicted quantity to validate/data/model-discrepancy.csv; `run` and `compare` widen their
// bands with it, labelled as such. It widens a band and never moves its P50.
#include <string>
#include <vector>

#include "sim/train/step_band.hpp"

namespace k3::results {

// The normal distribution's 90th percentile in standard deviations.
inline constexpr double kZ90 = 1.2815515655446004;

struct DiscrepancyFit {
  double sigma_log = 0;                // standard deviation of ln(published / predicted)
  std::vector<std::string> fitted_on;  // the families (published tables) it was fitted on
  bool pooled = false;                 // true when fewer than two families measure the quantity
};

// A P10..P90 band widened by the discrepancy: each side's log half-width and z * sigma added in quadrature,
// around the unchanged P50. A band of zero width becomes P50 x exp(-+z sigma).
train::Quantiles widen_by_discrepancy(const train::Quantiles& mechanism, double sigma_log);

// One row of the shipped table: the quantity ("training step", "collective bandwidth", "serving throughput")
// and its fit over every family.
struct QuantityDiscrepancy {
  std::string quantity;
  DiscrepancyFit fit;
};

// The table's text: a provenance line, then quantity,sigma_log,pooled,fitted_on (families joined by ';').
std::string discrepancy_table_csv(const std::vector<QuantityDiscrepancy>& rows);
// Reads it back; core::InputError naming the file, column and line of a bad cell.
std::vector<QuantityDiscrepancy> read_discrepancy_table(const std::string& path);
// The row of `quantity`; core::InputError naming the file when the table has none.
const QuantityDiscrepancy& discrepancy_of(const std::vector<QuantityDiscrepancy>& table, const std::string& quantity,
                                          const std::string& path);

}  // namespace k3::results
