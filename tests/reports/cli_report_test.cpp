// `--report` through the real binary: the HTML and the --json of the same run hold the same numbers.
#include <gtest/gtest.h>

#include "tests/reports/html_scan.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
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

namespace {
// Every data-key in the HTML at `path` resolves in `json` to the number shown; returns how many.
int expect_keys_match(const std::string& path, const nlohmann::json& json) {
  const std::string html = k3::test::slurp(path);
  int matched = 0;
  for (const auto& [key, shown] : k3::test::keyed_numbers(html)) {
    const nlohmann::json::json_pointer ptr(key);
    EXPECT_TRUE(json.contains(ptr)) << key;
    if (!json.contains(ptr)) continue;
    EXPECT_EQ(shown, json.at(ptr).get<double>()) << key;
    ++matched;
  }
  return matched;
}
}  // namespace

TEST(CliReport, RunReportNumbersEqualItsJson) {
  const std::string path = std::string(K3SIM_BINARY_DIR) + "/cli_report_run.html";
  const auto r = run_k3sim("run scenarios/deepseek-v3-h800-2048.yaml --samples 4 --json --report '" + path + "'");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  const int matched = expect_keys_match(path, json);
  // 6 cards; one time per breakdown entry; bytes per memory category plus total and HBM; bytes and
  // utilisation per link class; P10/P50/P90 of four quantities and of two widened by the model discrepancy (issue
  // 44); step time at the low and high end of each
  // tornado entry shown (at most 12); size and fewest and most NVLink domains per placement group; seconds, measured
  // seconds and measured share per compute category.
  const int tornado = std::min(12, static_cast<int>(json["sensitivity"].size()));
  const int expected = 6 + static_cast<int>(json["breakdown"].size()) + static_cast<int>(json["memory_per_gpu"].size()) +
                       2 + 2 * static_cast<int>(json["links"].size()) + 12 + 6 + 2 * tornado +
                       3 * static_cast<int>(json["layout"]["placement"].size()) +
                       3 * static_cast<int>(json["compute_priced_from_measurements"].size());
  EXPECT_EQ(matched, expected);
  const std::string html = k3::test::slurp(path);
  std::remove(path.c_str());
  EXPECT_NE(html.find(R"(data-chart="gantt")"), std::string::npos);  // the timeline is kept for the report
  EXPECT_NE(html.find("Step time moved by each factor alone"), std::string::npos);  // the tornado chart
  EXPECT_NE(html.find("Scenario YAML as run"), std::string::npos);
  EXPECT_NE(html.find(json["version"].get<std::string>()), std::string::npos);
}

TEST(CliReport, K3ScenarioReportStaysUnderFiveMegabytes) {
  const std::string path = std::string(K3SIM_BINARY_DIR) + "/cli_report_k3.html";
  const auto r = run_k3sim("run scenarios/k3-h200-2048.yaml --samples 0 --report '" + path + "'");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const std::string html = k3::test::slurp(path);
  std::remove(path.c_str());
  EXPECT_LT(html.size(), 5'000'000u);
  // The thinned timeline: at most 8 compute ranks plus the DP track, at most 600 bars each.
  const auto gantt = html.find(R"(data-chart="gantt")");
  ASSERT_NE(gantt, std::string::npos);
  const auto marks = k3::test::attribute_values(html, R"(data-chart="gantt")", "data-marks");
  ASSERT_EQ(marks.size(), 1u);
  EXPECT_GT(std::atoi(marks[0].c_str()), 0);
  EXPECT_LE(std::atoi(marks[0].c_str()), 9 * 600);
}

TEST(CliReport, KvReportNumbersEqualItsJson) {
  const std::string path = std::string(K3SIM_BINARY_DIR) + "/cli_report_kv.html";
  const auto r = run_k3sim("kv k3 --context 4K,128K,1M --batch 8 --json --report '" + path + "'");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  const int matched = expect_keys_match(path, json);
  std::remove(path.c_str());
  // 4 variants (K3, K2, GQA8, MFA) x 3 contexts = 12 rows of 8 keyed numbers, plus 4 cards.
  EXPECT_EQ(json["rows"].size(), 12u);
  EXPECT_EQ(matched, 12 * 8 + 4);
}

TEST(CliReport, TrafficReportNumbersEqualItsJsonAndDrawsOneEpGroup) {
  const std::string path = std::string(K3SIM_BINARY_DIR) + "/cli_report_traffic.html";
  const auto r = run_k3sim("traffic --ep 16 --tokens-per-gpu 64 --json --report '" + path + "'");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  const int matched = expect_keys_match(path, json);
  const std::string html = k3::test::slurp(path);
  std::remove(path.c_str());
  // k3 and k3-448: 9 keyed numbers per model row.
  EXPECT_EQ(matched, 2 * 9);
  // One heatmap of the first model's EP group: 16 x 16 GPU cells.
  const auto marks = k3::test::attribute_values(html, R"(data-chart="heatmap")", "data-marks");
  ASSERT_EQ(marks.size(), 1u);
  EXPECT_EQ(marks[0], "256");
}

// Issue 46: the whole run's section of the run report, every number keyed into --json's "goodput": three cards and,
// per cause (seven), its rate on the job, mean interruptions, work lost and recovering.
TEST(CliReport, GoodputSectionNumbersEqualItsJson) {
  const std::string path = std::string(K3SIM_BINARY_DIR) + "/cli_report_goodput.html";
  const auto r = run_k3sim("run scenarios/llama3-405b-h100-16384.yaml --goodput --days 54 --replications 4 --samples 0 "
                           "--json --report '" + path + "'");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  expect_keys_match(path, json);
  const std::string html = k3::test::slurp(path);
  std::remove(path.c_str());
  int goodput_keys = 0;
  for (const auto& [key, shown] : k3::test::keyed_numbers(html)) goodput_keys += key.starts_with("/goodput/") ? 1 : 0;
  EXPECT_EQ(goodput_keys, 3 + 7 * 4);
  EXPECT_NE(html.find("A whole run: interruptions and goodput"), std::string::npos);
  EXPECT_NE(html.find("Time lost against the checkpoint interval"), std::string::npos);
}
