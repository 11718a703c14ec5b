// Issue 44: the model-discrepancy term, fitted leaving one family out (validate/model_discrepancy.hpp).
#include <gtest/gtest.h>

#include <cmath>

#include "validate/model_discrepancy.hpp"
#include "validate/validation.hpp"

namespace k3::validate {
namespace {

// Families weigh equally, each by its mean r^2:
//   a (training): r = 0.1, 0.3 -> (0.01 + 0.09) / 2 = 0.05
//   b (training): r = 0.2      -> 0.04
//   c (training): r = -0.4     -> 0.16
//   d (serving):  r = 0.5      -> 0.25
// Training leaving a out: sqrt((0.04 + 0.16) / 2) = sqrt(0.1) = 0.316228.
// Training leaving nothing out: sqrt((0.05 + 0.04 + 0.16) / 3) = sqrt(0.083333) = 0.288675.
// Serving has one family (d): pooled. Leaving d out: sqrt((0.05 + 0.04 + 0.16) / 3) = 0.288675 over a, b, c;
// leaving nothing out: sqrt((0.05 + 0.04 + 0.16 + 0.25) / 4) = sqrt(0.125) = 0.353553.
std::vector<FamilyResiduals> toy_families() {
  return {{"a", "training step", {0.1, 0.3}},
          {"b", "training step", {0.2}},
          {"c", "training step", {-0.4}},
          {"d", "serving throughput", {0.5}}};
}

TEST(ModelDiscrepancy, FamiliesWeighEquallyAndTheLeftOutOneIsNotUsed) {
  const auto f = toy_families();
  const auto without_a = fit_discrepancy(f, "training step", "a");
  EXPECT_NEAR(without_a.sigma_log, std::sqrt(0.1), 1e-12);
  EXPECT_EQ(without_a.fitted_on, (std::vector<std::string>{"b", "c"}));
  EXPECT_FALSE(without_a.pooled);
  EXPECT_NEAR(fit_discrepancy(f, "training step", "").sigma_log, std::sqrt(0.25 / 3), 1e-12);
}

TEST(ModelDiscrepancy, AQuantityOneFamilyMeasuresIsPooled) {
  const auto f = toy_families();
  const auto without_d = fit_discrepancy(f, "serving throughput", "d");
  EXPECT_TRUE(without_d.pooled);
  EXPECT_EQ(without_d.fitted_on, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_NEAR(without_d.sigma_log, std::sqrt(0.25 / 3), 1e-12);
  EXPECT_NEAR(fit_discrepancy(f, "serving throughput", "").sigma_log, std::sqrt(0.125), 1e-12);
  // With no family at all there is nothing to fit: spread 0, fitted on none.
  EXPECT_EQ(fit_discrepancy({}, "training step", "").sigma_log, 0.0);
}

// z = 1.28155, sigma 0.1: d = 0.128155. A point band at 100 becomes 100 exp(-+0.128155) = 87.972 .. 113.673.
// A mechanism band 90 .. 100 .. 120: below ln(100/90) = 0.105361, hypot with d = 0.165906 -> 84.713;
// above ln(1.2) = 0.182322, hypot with d = 0.222856 -> 124.964. P50 stays 100.
TEST(ModelDiscrepancy, WidensEachSideInQuadratureAroundAnUnmovedP50) {
  const auto point = results::widen_by_discrepancy({100, 100, 100}, 0.1);
  EXPECT_NEAR(point.p10, 87.972, 1e-3);
  EXPECT_NEAR(point.p90, 113.673, 1e-3);
  const auto band = results::widen_by_discrepancy({90, 100, 120}, 0.1);
  EXPECT_NEAR(band.p10, 84.713, 1e-3);
  EXPECT_DOUBLE_EQ(band.p50, 100.0);
  EXPECT_NEAR(band.p90, 124.964, 1e-3);
  const auto none = results::widen_by_discrepancy({90, 100, 120}, 0.0);
  EXPECT_NEAR(none.p10, 90.0, 1e-9);
  EXPECT_NEAR(none.p90, 120.0, 1e-9);
}

ValidationCase toy_case(const std::string& family, double predicted, double published) {
  ValidationCase c;
  c.name = family + " row";
  c.group = family;
  c.quantity = "training step";
  c.predicted = predicted;
  c.published = published;
  c.rel_error = (predicted - published) / published;
  return c;
}

// Acceptance: a family's discrepancy is fitted without it. Changing family x's published values leaves x's own
// band where it was, and moves the bands of y and z (whose fits read x's residuals).
TEST(ModelDiscrepancy, AFamilysOwnBandIgnoresItsPublishedValues) {
  auto report_with = [](double x_published) {
    ValidationReport r;
    r.cases = {toy_case("x", 100, x_published), toy_case("x", 50, x_published / 2), toy_case("y", 10, 12),
               toy_case("z", 20, 17)};
    apply_discrepancy(r);
    return r;
  };
  const auto before = report_with(110);
  const auto after = report_with(180);
  for (std::size_t i : {0u, 1u}) {
    EXPECT_DOUBLE_EQ(after.cases[i].band_p10, before.cases[i].band_p10);
    EXPECT_DOUBLE_EQ(after.cases[i].band_p90, before.cases[i].band_p90);
  }
  for (std::size_t i : {2u, 3u}) EXPECT_GT(after.cases[i].band_p90, before.cases[i].band_p90) << after.cases[i].name;
  // By hand, x's band: y's r = ln(12/10) = 0.182322, z's r = ln(17/20) = -0.162519; sigma^2 = (0.033241 +
  // 0.026412) / 2 = 0.029827, sigma 0.172704, z sigma 0.221329: 100 exp(-+0.221329) = 80.145 .. 124.773.
  EXPECT_NEAR(before.cases[0].band_p10, 80.145, 1e-3);
  EXPECT_NEAR(before.cases[0].band_p90, 124.773, 1e-3);
  EXPECT_EQ(before.cases_with_band, 4);
  // The families come worst first: x's centre is off by 100/110 - 1 = -9.1% (both rows), y's by -16.7%, z's by
  // +17.6%: z, y, x.
  ASSERT_EQ(before.families.size(), 3u);
  EXPECT_EQ(before.families[0].family, "z");
  EXPECT_EQ(before.families[2].family, "x");
  EXPECT_EQ(before.families[2].rows, 2);
}

}  // namespace
}  // namespace k3::validate
