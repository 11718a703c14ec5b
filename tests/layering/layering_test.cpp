// The include graph follows the floors: every include of the tree goes down (README "Layout").
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>

#include "tests/layering/floors.hpp"

namespace k3::layering {
namespace {

namespace fs = std::filesystem;

TEST(Layering, EveryIncludeOfTheTreeGoesDown) {
  const auto violations = find_violations(K3SIM_SOURCE_DIR);
  std::string all;
  for (const auto& v : violations) all += v.text() + "\n";
  EXPECT_TRUE(violations.empty()) << violations.size() << " includes cross the floors:\n" << all;
}

// A throwaway tree with one include of each kind shows the check can fail, and names file and line.
class LayeringOnATree : public ::testing::Test {
 protected:
  void SetUp() override {
    // ctest runs each test in its own process, several at once: the test's name and the process id keep
    // their trees apart (gtest's random seed is the clock and was shared by two tests started together).
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::path(K3SIM_BINARY_DIR) /
            ("layering-tree-" + std::string(info->name()) + "-" + std::to_string(::getpid()));
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& rel, const std::string& text) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << text;
  }
  fs::path root_;
};

TEST_F(LayeringOnATree, DownwardIncludesPass) {
  write("sim/net/flow.cpp", "#include \"sim/net/flow.hpp\"\n#include \"sim/engine/simulator.hpp\"\n#include \"core/units.hpp\"\n");
  write("cli/main.cpp", "#include <vector>\n#include \"sim/input/scenario.hpp\"\n#include \"reports/report.hpp\"\n");
  EXPECT_TRUE(find_violations(root_).empty());
}

TEST_F(LayeringOnATree, AnUpwardIncludeFailsNamingFileAndLine) {
  // core is floor 1 and sim/engine floor 3: line 3 of core/units.hpp goes up.
  write("core/units.hpp", "#pragma once\n#include <cstdint>\n#include \"sim/engine/simulator.hpp\"\n");
  const auto v = find_violations(root_);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].file, "core/units.hpp");
  EXPECT_EQ(v[0].line, 3);
  EXPECT_EQ(v[0].included, "sim/engine/simulator.hpp");
  EXPECT_NE(v[0].text().find("core/units.hpp:3:"), std::string::npos);
}

TEST_F(LayeringOnATree, IndentedIncludesAreReadCommentsAndSystemHeadersAreNot) {
  // Lines 2 and 4 include sim/ from core/ (floor 1): an indented `#  include` counts; a commented-out
  // include, a system header and an unterminated quote do not.
  write("core/a.cpp",
        "// #include \"sim/engine/simulator.hpp\"\n"
        "  #  include \"sim/net/maxmin.hpp\"\n"
        "#include <sim/engine/simulator.hpp>\n"
        "#include \"sim/exec/pass_runner.hpp\"  // trailing comment\n"
        "#include \"sim/train/unterminated.hpp\n");
  const auto v = find_violations(root_);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].line, 2);
  EXPECT_EQ(v[0].included, "sim/net/maxmin.hpp");
  EXPECT_EQ(v[1].line, 4);
}

TEST_F(LayeringOnATree, SiblingsOnOneFloorDoNotIncludeEachOther) {
  // model and topologies are both floor 2.
  write("model/kv_cache.cpp", "#include \"topologies/load.hpp\"\n");
  ASSERT_EQ(find_violations(root_).size(), 1u);
}

TEST_F(LayeringOnATree, BenchAndCliIncludeNoTestHeaders) {
  write("bench/net/a.cpp", "#include \"tests/net/fabrics.hpp\"\n");
  write("cli/b.cpp", "#include \"tests/support/run_k3sim.hpp\"\n");
  EXPECT_EQ(find_violations(root_).size(), 2u);
}

TEST_F(LayeringOnATree, AnUnknownFolderIsNamed) {
  write("sim/train/step.cpp", "#include \"sim/plan/scenario.hpp\"\n");
  const auto v = find_violations(root_);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].why.find("not on any floor"), std::string::npos);
}

// Issue 44: a fresh clone has no ../shared, so only tests may read it (comments may cite it). A source line outside
// tests/ whose code (before any //) names ../shared is a path the shipped tool would depend on.
TEST(Layering, OnlyTestsReadTheSharedFolder) {
  std::string found;
  const auto code_or_cmake = [](const fs::path& p) {
    const auto ext = p.extension().string();
    return ext == ".cpp" || ext == ".hpp" || ext == ".cu" || ext == ".cuh" || p.filename() == "CMakeLists.txt";
  };
  for (const auto& file : files_under(K3SIM_SOURCE_DIR, code_or_cmake)) {
    const auto rel = fs::relative(file, K3SIM_SOURCE_DIR).generic_string();
    if (rel.rfind("tests/", 0) == 0) continue;
    std::ifstream in(file);
    int number = 0;
    for (std::string line; std::getline(in, line);) {
      ++number;
      const std::string code = line.substr(0, line.find("//"));
      if (code.find("../shared") != std::string::npos) found += rel + ":" + std::to_string(number) + ": " + line + "\n";
    }
  }
  EXPECT_TRUE(found.empty()) << "outside tests/, these lines read ../shared:\n" << found;
}

TEST(Layering, SubFoldersBelongToTheirParent) {
  ASSERT_NE(floor_of("kernels/gemm/gemm.cu"), nullptr);
  EXPECT_EQ(floor_of("kernels/gemm/gemm.cu")->folder, "kernels");
  EXPECT_EQ(floor_of("model/routing/traffic.hpp")->folder, "model/routing");
  EXPECT_EQ(floor_of("model/ops.hpp")->folder, "model");
  EXPECT_EQ(floor_of("modelx/ops.hpp"), nullptr);
  EXPECT_EQ(floor_of("CMakeLists.txt"), nullptr);
}

}  // namespace
}  // namespace k3::layering
