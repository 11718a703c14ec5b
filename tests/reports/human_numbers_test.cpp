// Issue 47: no e-notation and no number of more than 6 digits without a prefix in the text or the HTML a person
// reads, for the shipped scenarios (JSON and the scenario YAML echoed as run are exempt: they are for machines
// and for re-running). Commit hashes are not numbers.
#include <gtest/gtest.h>

#include <cstdio>
#include <regex>
#include <string>
#include <vector>

#include "tests/support/run_k3sim.hpp"

namespace {

// What a reader sees of a page: no style, script, echoed YAML or markup (attributes hold exact numbers for tests).
std::string visible_text(std::string html) {
  for (const char* block : {R"(<style[\s\S]*?</style>)", R"(<script[\s\S]*?</script>)", R"(<pre>[\s\S]*?</pre>)"}) {
    html = std::regex_replace(html, std::regex(block), " ");
  }
  return std::regex_replace(html, std::regex("<[^>]+>"), " ");
}

// Every number written in e-notation, or whose whole part has 7 or more digits (grouped or not). Commit hashes are
// taken out first: they are names, not numbers.
std::vector<std::string> unreadable_numbers(std::string text) {
  text = std::regex_replace(text, std::regex(R"(\b[0-9a-f]{12,40}\b)"), " ");
  static const std::regex number(R"(\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?)");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), number); it != std::sregex_iterator(); ++it) {
    const std::string hit = it->str();
    std::string whole = hit.substr(0, hit.find_first_of(".e"));
    std::erase(whole, ',');
    if (hit.find('e') != std::string::npos || whole.size() >= 7) out.push_back(hit);
  }
  return out;
}

}  // namespace

TEST(HumanNumbers, TheScannerFindsWhatItMustAndSparesTheRest) {
  EXPECT_EQ(unreadable_numbers("4.846e+10 B and 1.07e6 USD").size(), 2u);
  EXPECT_EQ(unreadable_numbers("a context of 1048576 tokens, 989,500,000,000,000 FLOP/s").size(), 2u);
  EXPECT_TRUE(unreadable_numbers("45.13 GiB, 1.33M tokens/s, 999,999, commit 7f4f0e2b2721").empty());
  EXPECT_TRUE(unreadable_numbers("-0.0007566 s, 1.235 M").empty());  // fractional digits are not a whole part
  EXPECT_EQ(unreadable_numbers(visible_text("<td data-value=\"48460000000\">45.13 GiB</td><pre>lr: 1e-3</pre>")),
            std::vector<std::string>{});
}

TEST(HumanNumbers, ShippedScenariosPrintNoUnreadableNumber) {
  const std::string page = std::string(K3SIM_BINARY_DIR) + "/human-numbers-report.html";
  const std::vector<std::string> commands = {
      "run scenarios/deepseek-v3-h800-2048.yaml --set network=analytical --samples 4",
      "compare scenarios/k3-vs-448-h200-2048.yaml --set network=analytical --samples 4",
      "serve scenarios/serving/deepseek-v3-h100-96-serving.yaml --set workload.duration_s=20 --set workload.warmup_s=5",
      "kv k3",
      "balance --model k3 --balancer qb-hist --steps 3 --tokens-per-rank 256",
      "traffic k3,k3-448 --ep 64 --gpus-per-node 8",
  };
  for (const auto& c : commands) {
    const auto text = k3::test::run_k3sim(c);
    ASSERT_EQ(text.exit_status, 0) << c << "\n" << text.err;
    EXPECT_EQ(unreadable_numbers(text.out), std::vector<std::string>{}) << c;
    if (c.starts_with("traffic")) continue;  // its report is the traffic section, checked with compare's
    const auto report = k3::test::run_k3sim(c + " --report '" + page + "'");
    ASSERT_EQ(report.exit_status, 0) << c << "\n" << report.err;
    EXPECT_EQ(unreadable_numbers(visible_text(k3::test::slurp(page))), std::vector<std::string>{}) << c << " --report";
    std::remove(page.c_str());
  }
}
