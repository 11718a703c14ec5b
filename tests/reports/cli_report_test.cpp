// `--report` through the real binary: the HTML and the --json of the same run hold the same numbers.
#include <gtest/gtest.h>

#include "tests/reports/html_scan.hpp"

#include <nlohmann/json.hpp>

#include <cstdlib>

#include "tests/support/run_k3sim.hpp"

using k3::test::run_k3sim;

TEST(CliReport, BalanceReportNumbersEqualItsJson) {
  const std::string path = std::string(K3SIM_BINARY_DIR) + "/cli_report_balance.html";
  const auto r = run_k3sim("balance --steps 3 --ranks 2 --tokens-per-rank 64 --ep 16 --balancer qb-hist,sign --json "
                           "--report '" + path + "'");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  const std::string html = k3::test::slurp(path);
  std::remove(path.c_str());
  int matched = 0;
  for (const auto& [key, shown] : k3::test::keyed_numbers(html)) {
    const nlohmann::json::json_pointer ptr(key);
    ASSERT_TRUE(json.contains(ptr)) << key;
    EXPECT_EQ(shown, json.at(ptr).get<double>()) << key;
    ++matched;
  }
  // 2 models x 2 balancers = 4 table rows of at least 5 keyed numbers, plus 2 cards per model.
  EXPECT_GE(matched, 4 * 5 + 2 * 2);
  EXPECT_NE(html.find("seed=1"), std::string::npos);  // the options as run
}

TEST(CliReport, UnwritableReportPathIsBadInput) {
  const auto r = run_k3sim("balance --steps 1 --ranks 1 --tokens-per-rank 16 --ep 16 --balancer none --model k3 "
                           "--report /nonexistent-folder/r.html");
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("--report"), std::string::npos) << r.err;
}
