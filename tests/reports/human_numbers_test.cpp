// Issue 47: no e-notation and no number of more than 6 digits without a prefix in the text or the HTML a person
// reads, for the shipped scenarios (JSON and the scenario YAML echoed as run are exempt: they are for machines
// and for re-running). Commit hashes are not numbers.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "tests/reports/html_scan.hpp"
#include "tests/support/run_k3sim.hpp"

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_word(char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Every number written in e-notation, or whose whole part has 7 or more digits (grouped or not). Commit hashes (12
// to 40 hex characters with a letter among them) are names, not numbers.
std::vector<std::string> unreadable_numbers(const std::string& text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (is_word(text[i])) {
      std::size_t end = i;
      bool hex = true, letter = false;
      while (end < text.size() && is_word(text[end])) {
        const char c = text[end];
        hex = hex && (is_digit(c) || (c >= 'a' && c <= 'f'));
        letter = letter || !is_digit(c);
        ++end;
      }
      if (hex && letter && end - i >= 12 && end - i <= 40) {
        i = end;
        continue;
      }
    }
    if (!is_digit(text[i])) {
      ++i;
      continue;
    }
    const std::size_t start = i;
    std::string whole;
    while (i < text.size() && (is_digit(text[i]) || text[i] == ',')) {
      if (text[i] != ',') whole += text[i];
      ++i;
    }
    if (i + 1 < text.size() && text[i] == '.' && is_digit(text[i + 1])) {
      ++i;
      while (i < text.size() && is_digit(text[i])) ++i;
    }
    bool exponent = false;
    if (i < text.size() && text[i] == 'e') {
      const std::size_t d = i + 1 < text.size() && (text[i + 1] == '+' || text[i + 1] == '-') ? i + 2 : i + 1;
      if (d < text.size() && is_digit(text[d])) {
        exponent = true;
        i = d;
        while (i < text.size() && is_digit(text[i])) ++i;
      }
    }
    if (exponent || whole.size() >= 7) out.push_back(text.substr(start, i - start));
  }
  return out;
}

}  // namespace

TEST(HumanNumbers, TheScannerFindsWhatItMustAndSparesTheRest) {
  EXPECT_EQ(unreadable_numbers("4.846e+10 B and 1.07e6 USD").size(), 2u);
  EXPECT_EQ(unreadable_numbers("a context of 1048576 tokens, 989,500,000,000,000 FLOP/s").size(), 2u);
  EXPECT_TRUE(unreadable_numbers("45.13 GiB, 1.33M tokens/s, 999,999, commit 7f4f0e2b2721").empty());
  EXPECT_TRUE(unreadable_numbers("-0.0007566 s, 1.235 M").empty());  // fractional digits are not a whole part
  const std::string cell = "<td data-value=\"48460000000\">45.13 GiB</td><pre>lr: 1e-3</pre>";
  EXPECT_EQ(unreadable_numbers(k3::test::visible_text(cell)), std::vector<std::string>{});
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
      "run scenarios/llama3-405b-h100-16384.yaml --samples 0 --goodput --days 54 --replications 4",
  };
  for (const auto& c : commands) {
    const auto text = k3::test::run_k3sim(c);
    ASSERT_EQ(text.exit_status, 0) << c << "\n" << text.err;
    EXPECT_EQ(unreadable_numbers(text.out), std::vector<std::string>{}) << c;
    if (c.starts_with("traffic")) continue;  // its report is the traffic section, checked with compare's
    const auto report = k3::test::run_k3sim(c + " --report '" + page + "'");
    ASSERT_EQ(report.exit_status, 0) << c << "\n" << report.err;
    EXPECT_EQ(unreadable_numbers(k3::test::visible_text(k3::test::slurp(page))), std::vector<std::string>{}) << c << " --report";
    std::remove(page.c_str());
  }
}
