// Replays the fuzz corpus through the loaders as the libFuzzer targets call them (tests/fuzz/fuzz_harness.hpp):
// shipped files must load, and every seed, broken variant and past finding (regressions/<loader>/) must give
// a value or k3::core::InputError naming the input, never another exception or a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_harness.hpp"
#include "tests/support/run_k3sim.hpp"

namespace {

namespace fs = std::filesystem;
using Loader = std::function<void(const std::uint8_t*, std::size_t)>;

const std::string kSource = K3SIM_SOURCE_DIR;

std::vector<fs::path> files_in(const std::string& dir, const std::string& extension = "") {
  std::vector<fs::path> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file() && (extension.empty() || e.path().extension() == extension)) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

void call(const Loader& load, const std::string& text) {
  load(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
}

// Every file must give a value or an InputError that names the fuzz input ("fuzz.yaml" / "config.json").
int replay(const Loader& load, const std::vector<fs::path>& files, const std::string& source_name) {
  int input_errors = 0;
  for (const auto& f : files) {
    try {
      call(load, k3::test::slurp(f.string()));
    } catch (const k3::core::InputError& e) {
      ++input_errors;
      EXPECT_EQ(e.where().file, source_name) << f << ": " << e.what();
      EXPECT_FALSE(e.problem().empty()) << f;
    } catch (const std::exception& e) {
      ADD_FAILURE() << f << ": not an InputError: " << e.what();
    }
  }
  return input_errors;
}

std::vector<fs::path> seeds(const std::string& loader) { return files_in(kSource + "/tests/fuzz/seeds/" + loader); }
std::vector<fs::path> findings(const std::string& loader) {
  return files_in(kSource + "/tests/fuzz/regressions/" + loader);
}

TEST(FuzzRegressions, ShippedScenariosLoad) {
  const auto shipped = files_in(kSource + "/scenarios", ".yaml");
  ASSERT_GE(shipped.size(), 4u);  // k3-h200-2048, k3-448-h200-2048, deepseek-v3-h800-2048, megatron-sc21-selene
  EXPECT_EQ(replay(k3::fuzz::load_scenario_bytes, shipped, "fuzz.yaml"), 0);
}

TEST(FuzzRegressions, ShippedServingScenariosLoad) {
  const auto shipped = files_in(kSource + "/scenarios/serving", ".yaml");
  ASSERT_GE(shipped.size(), 3u);  // k3, k3-448 and the SGLang DeepSeek-V3 deployment
  EXPECT_EQ(replay(k3::fuzz::load_serve_scenario_bytes, shipped, "fuzz.yaml"), 0);
}

TEST(FuzzRegressions, ShippedTopologyPresetsLoad) {
  const auto shipped = files_in(kSource + "/topologies/presets", ".yaml");
  ASSERT_GE(shipped.size(), 5u);
  EXPECT_EQ(replay(k3::fuzz::load_topology_bytes, shipped, "fuzz.yaml"), 0);
}

TEST(FuzzRegressions, ShippedConfigJsonFixturesLoad) {
  std::vector<fs::path> shipped;
  for (const auto& e : fs::directory_iterator(kSource + "/tests/model/fixtures")) shipped.push_back(e.path() / "config.json");
  ASSERT_GE(shipped.size(), 5u);
  EXPECT_EQ(replay(k3::fuzz::load_hf_config_bytes, shipped, "config.json"), 0);
}

// The broken variants in seeds/ are each wrong on purpose, so each must be refused with an InputError.
TEST(FuzzRegressions, BrokenScenariosGiveInputErrors) {
  const auto files = seeds("scenario");
  ASSERT_FALSE(files.empty());
  EXPECT_EQ(replay(k3::fuzz::load_scenario_bytes, files, "fuzz.yaml"), static_cast<int>(files.size()));
}

// tiny-custom.yaml and fat-tree3.yaml are valid; bad-radix.yaml is not.
TEST(FuzzRegressions, TopologySeedsGiveValueOrInputError) {
  const auto files = seeds("topology");
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(replay(k3::fuzz::load_topology_bytes, files, "fuzz.yaml"), 1);
}

TEST(FuzzRegressions, BrokenConfigJsonGivesInputErrors) {
  const auto files = seeds("hf_config");
  ASSERT_FALSE(files.empty());
  EXPECT_EQ(replay(k3::fuzz::load_hf_config_bytes, files, "config.json"), static_cast<int>(files.size()));
}

// Inputs the fuzzer once crashed on or that escaped as another exception; each gives a value or InputError.
TEST(FuzzRegressions, PastFindingsGiveValueOrInputError) {
  replay(k3::fuzz::load_scenario_bytes, findings("scenario"), "fuzz.yaml");
  replay(k3::fuzz::load_topology_bytes, findings("topology"), "fuzz.yaml");
  replay(k3::fuzz::load_hf_config_bytes, findings("hf_config"), "config.json");
}

}  // namespace
