#pragma once
// The model-discrepancy term of a prediction's band (issue 44): how far k3sim's predictions land from published
// measurements of families it was not fitted on, as a log-normal spread around the prediction. It widens a band and
// never moves its centre.
//
// The fit, chosen before any coverage was computed from it:
//   - a row's residual is r = ln(published / predicted): unit-free, the same for a time and for a rate;
//   - a family (one published table: one study's runs) contributes its mean r^2, and families weigh equally,
//     because a run a planner asks about is a new family, and one family's rows share its errors (the same
//     stack, model and cluster): ten rows of one study are not ten draws of the model's error;
//   - sigma^2 is the mean over the families that measure the same quantity (a training step's time or rate,
//     a collective's bandwidth, a serving throughput); with fewer than two such families it is the mean over
//     every family (pooled), since one family is one draw;
//   - a family's own band uses a sigma fitted without that family (leave one family out), so its coverage says
//     how the band does on data it never saw.
#include <string>
#include <vector>

#include "results/model_discrepancy.hpp"

namespace k3::validate {

// One published table's residuals, r = ln(published / predicted), one per row.
struct FamilyResiduals {
  std::string family;    // "megatron-sc21"
  std::string quantity;  // "training step", "collective bandwidth", "serving throughput"
  std::vector<double> log_residuals;
};

using results::DiscrepancyFit;

// The fit for `quantity` over `families`, leaving out `leave_out` ("" leaves none out). A fit with no family to
// use has sigma 0 and fitted_on empty.
DiscrepancyFit fit_discrepancy(const std::vector<FamilyResiduals>& families, const std::string& quantity,
                               const std::string& leave_out);

}  // namespace k3::validate
