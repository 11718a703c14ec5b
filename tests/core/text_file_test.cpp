#include "core/text_file.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "core/error.hpp"

namespace k3::core {
namespace {

TEST(TextFile, ReadsAWholeFile) {
  const std::string path = ::testing::TempDir() + "/k3sim_text_file_test.txt";
  { std::ofstream(path) << "a: 1\nb: 2\n"; }
  EXPECT_EQ(read_text_file(path, "anything"), "a: 1\nb: 2\n");
  EXPECT_TRUE(path_exists(path));
}

TEST(TextFile, MissingFileIsAnInputErrorNamingIt) {
  try {
    (void)read_text_file("/nonexistent/k3sim.yaml", "a scenario");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "/nonexistent/k3sim.yaml");
    EXPECT_EQ(e.problem(), "no such file");
    EXPECT_EQ(e.allowed(), "a scenario");
  }
}

// A name over NAME_MAX (255 bytes on Linux) makes the throwing std::filesystem calls raise
// filesystem_error (ENAMETOOLONG); the fuzzer found that escaping as a crash.
TEST(TextFile, NameTooLongIsAnInputErrorNotAFilesystemError) {
  const std::string path = std::string(4000, 'x') + ".yaml";
  EXPECT_FALSE(path_exists(path));
  EXPECT_THROW((void)read_text_file(path, "a scenario"), InputError);
}

TEST(TextFile, DirectoryIsNotReadableText) {
  // An ifstream opens a directory on Linux but every read fails; that must not pass as an empty file.
  EXPECT_THROW((void)read_text_file(::testing::TempDir(), "a scenario"), InputError);
}

TEST(TextFile, DevicesAreRefusedInsteadOfReadForever) {
  // /dev/zero never ends; reading it as a scenario or a balancer state would hang or exhaust memory.
  try {
    (void)read_text_file("/dev/zero", "a scenario");
    FAIL() << "/dev/zero must be refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "/dev/zero");
    EXPECT_NE(e.problem().find("not a regular file"), std::string::npos);
  }
}

}  // namespace
}  // namespace k3::core
