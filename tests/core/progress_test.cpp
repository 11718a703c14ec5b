#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "core/progress.hpp"

using k3::core::Progress;
using k3::core::ProgressMode;

namespace {

// What a Progress wrote to its stream.
std::string written(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string out;
  for (int c = std::fgetc(f); c != EOF; c = std::fgetc(f)) out += static_cast<char>(c);
  return out;
}

}  // namespace

TEST(Progress, ModeIsQuietWhenAskedOrOffATerminalUnlessTheCommandLogsLines) {
  EXPECT_EQ(k3::core::progress_mode(true, true, true), ProgressMode::quiet);
  EXPECT_EQ(k3::core::progress_mode(false, true, false), ProgressMode::bar);
  EXPECT_EQ(k3::core::progress_mode(false, false, false), ProgressMode::quiet);
  EXPECT_EQ(k3::core::progress_mode(false, false, true), ProgressMode::lines);
}

TEST(Progress, LinesCountWhatIsDoneAboutTwentyTimesAndQuietWritesNothing) {
  std::FILE* lines = std::tmpfile();
  std::FILE* quiet = std::tmpfile();
  ASSERT_NE(lines, nullptr);
  ASSERT_NE(quiet, nullptr);
  {
    // 100 points: a line at the first and then whenever 100 / 20 = 5 more are done: 1, 6, ..., 96 (20 lines); then
    // finish prints 100/100, a count not printed yet: 21 lines.
    Progress p(100, lines, ProgressMode::lines, "sweep", "points");
    Progress q(100, quiet, ProgressMode::quiet, "sweep", "points");
    for (int i = 0; i < 100; ++i) {
      p.done_one();
      q.done_one();
    }
    p.finish();
    q.finish();
  }
  const auto out = written(lines);
  int count = 0;
  for (char c : out) count += c == '\n' ? 1 : 0;
  EXPECT_EQ(count, 21) << out;
  EXPECT_NE(out.find("sweep: 1/100 points"), std::string::npos) << out;
  EXPECT_NE(out.find("sweep: 100/100 points"), std::string::npos) << out;
  EXPECT_TRUE(written(quiet).empty());
  std::fclose(lines);
  std::fclose(quiet);
}

TEST(Progress, NoEtaBeforeTheFirstUnitIsDone) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    Progress p(5, f, ProgressMode::lines, "validate", "families");
    p.doing("DeepSeek-V3");  // the first line: nothing done yet
  }
  EXPECT_NE(written(f).find("validate: 0/5 families, 0.00 families/s, ETA -"), std::string::npos) << written(f);
  std::fclose(f);
}

TEST(Progress, DurationsReadInHumanUnits) {
  EXPECT_EQ(k3::core::format_duration(42), "42 s");
  EXPECT_EQ(k3::core::format_duration(185), "3 min 05 s");
  EXPECT_EQ(k3::core::format_duration(7800), "2 h 10 min");
}
