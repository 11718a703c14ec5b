// Golden whole-scenario outputs: each case runs `k3sim run ... --json` as a user would and compares every
// field (except the version string) with tests/golden/<case>.json. Numbers must agree to 1e-6 relative:
// runs are deterministic (the slack only absorbs rounding differences between builds), so any difference
// is a change in what k3sim predicts and must be looked at.
// After an intended change, regenerate with `scripts/update-golden.sh` and review the diff of the files.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/run_k3sim.hpp"

namespace {

using nlohmann::json;

struct GoldenCase {
  const char* name;
  const char* args;
};

// Small enough for the sanitizer build; together they cover both network models, 1F1B and DualPipe,
// dense and MoE models, BF16 and FP8, uniform and balancer-state expert load; two carry an uncertainty band
// (one on the flow network, whose band runs on the analytical one).
const GoldenCase kCases[] = {
    {"deepseek_v3_h800_2048", "run scenarios/deepseek-v3-h800-2048.yaml --samples 0 --json"},
    {"megatron_sc21_18b", "run scenarios/megatron-sc21-selene.yaml --samples 16 --json"},
    {"k3_h200_2048_analytical",
     "run scenarios/k3-h200-2048.yaml --set network=analytical --set expert_load.kind=uniform --samples 0 --json"},
    {"k3_448_h200_2048_analytical",
     "run scenarios/k3-448-h200-2048.yaml --set network=analytical --set expert_load.kind=uniform --samples 0 --json"},
    {"k3_ep16_flow_qb",
     "run scenarios/k3-h200-2048.yaml --set cluster.nodes=32 --set parallel.ep=16 --set communication.node_limit=2 "
     "--set batch.global_batch_seqs=512 --set expert_load.kind=balancer --set expert_load.steps=2 "
     "--set expert_load.tokens_per_rank=1024 --samples 4 --json"},
};

// gtest prints the parameter in test listings (and so in ctest's names): the case name, not its bytes.
void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.name; }

std::string golden_path(const std::string& name) {
  return std::string(K3SIM_SOURCE_DIR) + "/tests/golden/" + name + ".json";
}

// Appends one line per difference between `want` and `got` below `path`.
void diff(const json& want, const json& got, const std::string& path, std::vector<std::string>& out) {
  if (want.is_number() && got.is_number()) {
    const double a = want.get<double>(), b = got.get<double>();
    if (std::abs(a - b) > 1e-6 * std::max(std::abs(a), std::abs(b))) {
      out.push_back(path + ": golden " + want.dump() + ", now " + got.dump());
    }
    return;
  }
  if (want.type() != got.type()) {
    out.push_back(path + ": golden " + want.dump() + ", now " + got.dump());
    return;
  }
  if (want.is_object()) {
    for (const auto& [key, value] : want.items()) {
      if (!got.contains(key)) {
        out.push_back(path + "." + key + ": missing now");
      } else {
        diff(value, got[key], path + "." + key, out);
      }
    }
    for (const auto& [key, value] : got.items()) {
      if (!want.contains(key)) out.push_back(path + "." + key + ": new field " + value.dump());
    }
  } else if (want.is_array()) {
    if (want.size() != got.size()) {
      out.push_back(path + ": " + std::to_string(want.size()) + " entries in golden, " + std::to_string(got.size()) +
                    " now");
      return;
    }
    for (std::size_t i = 0; i < want.size(); ++i) diff(want[i], got[i], path + "[" + std::to_string(i) + "]", out);
  } else if (want != got) {
    out.push_back(path + ": golden " + want.dump() + ", now " + got.dump());
  }
}

class Golden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(Golden, RunJsonMatchesTheCommittedOutput) {
  const auto& c = GetParam();
  const auto r = k3::test::run_k3sim(c.args);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  json now = json::parse(r.out);
  now.erase("version");
  const std::string path = golden_path(c.name);
  if (std::getenv("K3SIM_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path) << now.dump(2) << "\n";
    GTEST_SKIP() << "wrote " << path;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << path << " is missing: run scripts/update-golden.sh";
  const json golden = json::parse(in);
  std::vector<std::string> differences;
  diff(golden, now, "", differences);
  std::string report;
  for (std::size_t i = 0; i < differences.size() && i < 20; ++i) report += "\n  " + differences[i];
  EXPECT_TRUE(differences.empty()) << differences.size() << " difference(s) from " << path << report;
}

INSTANTIATE_TEST_SUITE_P(Scenarios, Golden, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<GoldenCase>& p) { return std::string(p.param.name); });

}  // namespace
