// `k3sim validate` through the real binary: the JSON shape promised by issue 6 and bad-input handling.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <string>

#include "tests/support/run_k3sim.hpp"

namespace k3::test {
namespace {

TEST(ValidateCli, JsonListsEveryCaseWithSignedError) {
  const auto r = run_k3sim("validate --samples 4 --json");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  // 1 DeepSeek-V3 case + 10 Megatron rows + 5 Qwen3-235B layouts + 4 long-context rows + 4 DeepEP rows x
  // (dispatch, combine) + 2 SGLang serving rows = 30.
  ASSERT_EQ(j.at("cases").size(), 30u);
  double megatron_abs = 0;
  for (const auto& c : j.at("cases")) {
    for (const char* key : {"case", "metric", "predicted", "published", "rel_error"}) ASSERT_TRUE(c.contains(key));
    const double p = c.at("predicted").get<double>();
    const double q = c.at("published").get<double>();
    EXPECT_GT(p, 0) << c.at("case");
    EXPECT_NEAR(c.at("rel_error").get<double>(), (p - q) / q, 1e-12) << c.at("case");
    if (c.at("group") == "megatron-sc21") megatron_abs += std::abs(c.at("rel_error").get<double>());
  }
  EXPECT_NEAR(j.at("megatron_mean_abs_error").get<double>(), megatron_abs / 10, 1e-12);
  EXPECT_EQ(j.at("cases")[0].at("published").get<double>(), 19.926);
  // Every case has its band (4 samples here, to keep the sanitizer build quick), the error of its P50 and whether the published value
  // lies inside P10..P90; the coverage counts them.
  int in_band = 0;
  for (const auto& c : j.at("cases")) {
    ASSERT_TRUE(c.contains("in_band")) << c.at("case");
    const auto& b = c.at("band");
    EXPECT_LE(b.at("p10").get<double>(), b.at("p50").get<double>()) << c.at("case");
    EXPECT_LE(b.at("p50").get<double>(), b.at("p90").get<double>()) << c.at("case");
    const double q = c.at("published").get<double>();
    EXPECT_EQ(c.at("in_band").get<bool>(), q >= b.at("p10").get<double>() && q <= b.at("p90").get<double>());
    EXPECT_NEAR(c.at("p50_rel_error").get<double>(), (b.at("p50").get<double>() - q) / q, 1e-12);
    in_band += c.at("in_band").get<bool>() ? 1 : 0;
  }
  EXPECT_EQ(j.at("coverage").at("cases_with_band").get<int>(), static_cast<int>(j.at("cases").size()));
  EXPECT_EQ(j.at("coverage").at("cases_in_band").get<int>(), in_band);
}

// Issue 44: README's trust section carries the per-family table as `k3sim validate --samples 0 --markdown` prints it
// (generated, not hand-copied): a change that moves any family's figures must regenerate README's copy.
TEST(ValidateCli, ReadmeAndTheDiscrepancyTableAreGenerated) {
  const std::string table = std::string(K3SIM_BINARY_DIR) + "/validate-cli-discrepancy.csv";
  const auto r = run_k3sim("validate --samples 0 --markdown --write-discrepancy '" + table + "'");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  // The shipped discrepancy table that run and compare read is what this tree's validation fits.
  auto text_of = [](const std::string& path) {
    std::ifstream file(path);
    return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  };
  EXPECT_EQ(text_of(table), text_of(std::string(K3SIM_SOURCE_DIR) + "/validate/data/model-discrepancy.csv"))
      << "regenerate: k3sim validate --samples 0 --write-discrepancy validate/data/model-discrepancy.csv";
  std::ifstream in(std::string(K3SIM_SOURCE_DIR) + "/README.md");
  const std::string readme((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string begin = "<!-- generated: k3sim validate --samples 0 --markdown -->\n";
  const auto from = readme.find(begin);
  ASSERT_NE(from, std::string::npos) << "README.md has no generated validation table";
  const auto to = readme.find("<!-- end generated -->", from);
  ASSERT_NE(to, std::string::npos);
  EXPECT_EQ(readme.substr(from + begin.size(), to - from - begin.size()), r.out)
      << "regenerate README's table: k3sim validate --samples 0 --markdown";
  // Every family is a row, worst first by the mean |error| of its P50.
  EXPECT_NE(r.out.find("| megatron-sc21 | training step | 10 |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Coverage: "), std::string::npos);
}

TEST(ValidateCli, MissingDataFolderIsOneErrorLineAndStatus2) {
  const auto r = run_k3sim("validate --data /nonexistent-validation-dir");
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("/nonexistent-validation-dir/deepseek-v3-training.csv"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(r.out.empty());
}

}  // namespace
}  // namespace k3::test
