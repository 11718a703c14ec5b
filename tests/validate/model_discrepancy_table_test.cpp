// The model-discrepancy table run and compare read (results/model_discrepancy.hpp): written, read back, and a bad
// cell named by file, column and line.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "core/error.hpp"
#include "results/model_discrepancy.hpp"

namespace k3::results {
namespace {

TEST(ModelDiscrepancyTable, RoundTripsAndFindsAQuantity) {
  const std::string path = ::testing::TempDir() + "/discrepancy_round_trip.csv";
  {
    std::ofstream out(path);
    out << discrepancy_table_csv({{"training step", {0.25, {"a", "b"}, false}}, {"serving throughput", {0.5, {"a"}, true}}});
  }
  const auto rows = read_discrepancy_table(path);
  ASSERT_EQ(rows.size(), 2u);
  const auto& serving = discrepancy_of(rows, "serving throughput", path);
  EXPECT_DOUBLE_EQ(serving.fit.sigma_log, 0.5);
  EXPECT_TRUE(serving.fit.pooled);
  EXPECT_EQ(discrepancy_of(rows, "training step", path).fit.fitted_on, (std::vector<std::string>{"a", "b"}));
  EXPECT_THROW(discrepancy_of(rows, "collective bandwidth", path), core::InputError);
  std::remove(path.c_str());
}

TEST(ModelDiscrepancyTable, NamesTheFileColumnAndLineOfABadCell) {
  const std::string path = ::testing::TempDir() + "/discrepancy_bad.csv";
  {
    std::ofstream out(path);
    out << "# note\nquantity,sigma_log,pooled,fitted_on\ntraining step,-0.1,no,a\n";
  }
  try {
    read_discrepancy_table(path);
    FAIL() << "a negative spread must be refused";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().file, path);
    EXPECT_EQ(e.where().key, "sigma_log");
    EXPECT_EQ(e.where().line, 3);
  }
  std::remove(path.c_str());
  EXPECT_THROW(read_discrepancy_table(path), core::InputError);
}

}  // namespace
}  // namespace k3::results
