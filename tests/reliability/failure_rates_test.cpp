#include "sim/reliability/failure_rates.hpp"

#include <gtest/gtest.h>

#include <numeric>

namespace k3::reliability {
namespace {

TEST(FailureRates, Llama3TableGroupsIntoItsCountsAndRates) {
  const auto& p = llama3_405b_interruptions();
  // Table 5: 419 unexpected + 47 planned = 466.
  EXPECT_EQ(std::accumulate(p.count.begin(), p.count.end(), 0), 466);
  EXPECT_EQ(p.count[static_cast<std::size_t>(FailureCause::planned)], 47);
  // The rates back on the published run give its counts: the GPU cause, 196 over 54 x 24 = 1,296 h on 16,384 GPUs,
  // is 196 / (1,296 x 16,384) = 9.2307e-6 per GPU-hour; host, 46 over 1,296 h on 2,048 nodes, per node-hour;
  // software, 63 in 1,296 h, per job-hour.
  const auto r = llama3_405b_rates();
  EXPECT_NEAR(r[FailureCause::gpu], 196.0 / (1296.0 * 16384.0), 1e-15);
  EXPECT_NEAR(r[FailureCause::host], 46.0 / (1296.0 * 2048.0), 1e-15);
  EXPECT_NEAR(r[FailureCause::software], 63.0 / 1296.0, 1e-15);
  const auto job = job_rates_per_hour(r, 16384, 8);
  double per_run = 0;
  for (const double x : job) per_run += x * 1296.0;
  EXPECT_NEAR(per_run, 466.0, 1e-9);
  // Half the cluster: the GPU and node causes halve, the job causes stay.
  const auto half = job_rates_per_hour(r, 8192, 8);
  EXPECT_NEAR(half[0] * 1296.0, 98.0, 1e-9);
  EXPECT_NEAR(half[static_cast<std::size_t>(FailureCause::software)] * 1296.0, 63.0, 1e-9);
}

TEST(FailureRates, NamesAndUnits) {
  EXPECT_EQ(to_string(FailureCause::hbm), "hbm");
  EXPECT_EQ(unit_of(FailureCause::host), RateUnit::node);
  EXPECT_EQ(unit_of(FailureCause::planned), RateUnit::job);
  EXPECT_TRUE(takes_a_node(FailureCause::nic));
  EXPECT_FALSE(takes_a_node(FailureCause::network));
  for (const auto c : kFailureCauses) EXPECT_FALSE(describe(c).empty());
}

}  // namespace
}  // namespace k3::reliability
