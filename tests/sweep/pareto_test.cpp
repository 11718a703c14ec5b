#include "sweep/pareto.hpp"

#include <gtest/gtest.h>

namespace k3::sweep {
namespace {

TEST(ParetoFront, DominatedPointsExcludedTiesKept) {
  // (GPUs, step time s):
  //   0 (512, 10)  front: fewest GPUs
  //   1 (1024, 6)  front
  //   2 (1024, 8)  dominated by 1 (same GPUs, slower)
  //   3 (2048, 6)  dominated by 1 (more GPUs, same time)
  //   4 (2048, 4)  front
  //   5 (2048, 4)  tie with 4 on both axes: kept with it
  //   6 (4096, 5)  dominated by 4 (more GPUs, slower)
  const std::vector<Objective2> points{{512, 10}, {1024, 6}, {1024, 8}, {2048, 6}, {2048, 4}, {2048, 4}, {4096, 5}};
  const std::vector<bool> expected{true, true, false, false, true, true, false};
  EXPECT_EQ(pareto_front(points), expected);
}

TEST(ParetoFront, SinglePointAndEmpty) {
  EXPECT_EQ(pareto_front({{1, 1}}), std::vector<bool>{true});
  EXPECT_TRUE(pareto_front({}).empty());
}

TEST(ParetoFront, InputOrderDoesNotMatter) {
  // (3, 1) and (1, 3) trade off; (2, 2) trades off with both; (3, 3) is beaten by (2, 2).
  const std::vector<Objective2> points{{3, 3}, {3, 1}, {2, 2}, {1, 3}};
  const std::vector<bool> expected{false, true, true, true};
  EXPECT_EQ(pareto_front(points), expected);
}

}  // namespace
}  // namespace k3::sweep
