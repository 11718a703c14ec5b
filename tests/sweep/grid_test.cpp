#include "sweep/grid.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace k3::sweep {
namespace {

const std::string kGridBase = R"(
model: k3
cluster: {topology: h200-rail, nodes: 16}
parallel: {pp: 2, ep: 8}
batch: {seq_len: 4096, global_batch_seqs: 64}
)";

std::vector<std::string> values(const std::string& text) { return parse_grid_axis(text).values; }

TEST(GridAxis, ListsAndRanges) {
  EXPECT_EQ(values("parallel.ep=8,16,32"), (std::vector<std::string>{"8", "16", "32"}));
  // 128, 256, 512, 1024: factor 2 up to and including the end.
  EXPECT_EQ(values("cluster.nodes=128:1024:x2"), (std::vector<std::string>{"128", "256", "512", "1024"}));
  // 4, 8, 12 (16 is past the end).
  EXPECT_EQ(values("parallel.pp=4:14:+4"), (std::vector<std::string>{"4", "8", "12"}));
  EXPECT_EQ(values("price_per_gpu_hour=1.5:2.5:+0.5"), (std::vector<std::string>{"1.5", "2", "2.5"}));
  EXPECT_EQ(parse_grid_axis("model=k3,k3-448").key, "model");
}

TEST(GridAxis, MalformedAndEmptyRangesAreInputErrors) {
  for (const char* bad : {"parallel.ep", "=8", "parallel.ep=", "parallel.ep=8,,16", "parallel.ep=8,", "parallel.ep=64:8:x2",
                          "parallel.ep=8:64:x1", "parallel.ep=8:64", "parallel.ep=a:64:x2", "parallel.ep=8:64:+0"}) {
    EXPECT_THROW(parse_grid_axis(bad), core::InputError) << bad;
  }
}

TEST(ExpandGrid, CartesianProductLastAxisFastest) {
  const auto points = expand_grid({{"parallel.ep", {"8", "16"}}, {"parallel.pp", {"1", "2", "4"}}});
  // 2 x 3 = 6 points: (8,1) (8,2) (8,4) (16,1) (16,2) (16,4).
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(points[2][0].value, "8");
  EXPECT_EQ(points[2][1].value, "4");
  EXPECT_EQ(points[3][0].value, "16");
  EXPECT_EQ(points[3][1].value, "1");
  EXPECT_THROW(expand_grid({{"parallel.ep", {"8"}}, {"parallel.ep", {"16"}}}), core::InputError);
}

TEST(ValidateGrid, UnknownKeyAndWrongTypeNameTheAxis) {
  EXPECT_NO_THROW(validate_grid(kGridBase, "base.yaml", {}, {{"parallel.ep", {"8", "16"}}}));
  for (const GridAxis& bad : {GridAxis{"parallel.epp", {"8"}}, GridAxis{"paralel.ep", {"8"}},
                              GridAxis{"parallel.ep", {"8", "many"}}, GridAxis{"network", {"flow", "psychic"}}}) {
    try {
      validate_grid(kGridBase, "base.yaml", {}, {bad});
      ADD_FAILURE() << bad.key << " was accepted";
    } catch (const core::InputError& e) {
      EXPECT_EQ(e.where().file, "--grid");
      EXPECT_EQ(e.where().key, bad.key);
    }
  }
}

}  // namespace
}  // namespace k3::sweep
