#include <gtest/gtest.h>

#include "tests/support/run_k3sim.hpp"

using k3::test::run_k3sim;

TEST(Cli, VersionAndHelp) {
  auto v = run_k3sim("--version");
  EXPECT_EQ(v.exit_status, 0);
  EXPECT_NE(v.out.find("k3sim 0."), std::string::npos);
  EXPECT_NE(v.out.find(", commit "), std::string::npos) << v.out;  // a git hash, or "unknown" outside a checkout
  auto h = run_k3sim("--help");
  EXPECT_EQ(h.exit_status, 0);
  EXPECT_NE(h.out.find("Usage"), std::string::npos);
}

TEST(Cli, UnknownSubcommandOrFlagIsBadInput) {
  EXPECT_EQ(run_k3sim("frobnicate").exit_status, 2);
  EXPECT_EQ(run_k3sim("--no-such-flag").exit_status, 2);
  EXPECT_EQ(run_k3sim("").exit_status, 2);
}
