// "Did you mean" (issue 47), with the distances derived by hand.
#include <gtest/gtest.h>

#include "core/spelling.hpp"

// paralel -> parallel: one insertion. flwo -> flow: one swap of neighbours (w, o), where plain Levenshtein counts two.
// kitten -> sitting: k->s, e->i, insert g: three. Nothing from the empty string but insertions.
TEST(Spelling, EditDistanceCountsInsertionsDeletionsSubstitutionsAndSwaps) {
  EXPECT_EQ(k3::core::edit_distance("paralel", "parallel"), 1u);
  EXPECT_EQ(k3::core::edit_distance("flwo", "flow"), 1u);
  EXPECT_EQ(k3::core::edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(k3::core::edit_distance("", "abc"), 3u);
  EXPECT_EQ(k3::core::edit_distance("same", "same"), 0u);
}

// "epp" is one deletion from both "pp" and "ep": the one that starts like the typo wins. "zz" is two from "tp": past
// the 1 edit a name of up to 4 characters may be off by. "analytcal" (9 characters) is 1 from "analytical".
TEST(Spelling, ClosestNameIsNearEnoughToBeATypo) {
  const std::vector<std::string> axes = {"tp", "pp", "vpp", "ep", "etp", "cp"};
  EXPECT_EQ(k3::core::closest_name("epp", axes), "ep");
  EXPECT_EQ(k3::core::closest_name("zz", axes), std::nullopt);
  EXPECT_EQ(k3::core::closest_name("analytcal", {"flow", "analytical"}), "analytical");
  EXPECT_EQ(k3::core::did_you_mean("flwo", {"flow", "analytical"}), " (did you mean 'flow'?)");
  EXPECT_EQ(k3::core::did_you_mean("quantum", {"flow", "analytical"}), "");
}
