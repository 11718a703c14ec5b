#include "sweep/variants.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace k3::sweep {
namespace {

const std::string kNamedBase = R"(
name: base
model: k3
cluster: {topology: h200-rail, nodes: 16}
parallel: {pp: 2, ep: 8}
batch: {seq_len: 4096, global_batch_seqs: 64}
)";

TEST(Variants, WithoutListTheFileIsOneVariant) {
  const auto v = parse_variants(kNamedBase, "base.yaml");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].name, "base");
  EXPECT_EQ(v[0].scenario.parallel.ep, 8);
}

TEST(Variants, NestedSetBecomesDottedOverrides) {
  const auto v = parse_variants(kNamedBase + "variants:\n  - name: a\n  - name: b\n    set: {model: k3-448, parallel: {ep: 16}}\n",
                                "base.yaml", {{"network", "analytical"}});
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].name, "a");
  EXPECT_EQ(v[0].scenario.model, "k3");
  EXPECT_EQ(v[0].scenario.parallel.ep, 8);
  EXPECT_EQ(v[1].scenario.model, "k3-448");
  EXPECT_EQ(v[1].scenario.parallel.ep, 16);
  EXPECT_EQ(v[1].scenario.parallel.pp, 2);  // untouched sibling key
  for (const auto& x : v) EXPECT_EQ(x.scenario.network->name, "analytical");
}

TEST(Variants, BadListsAreInputErrors) {
  for (const char* bad : {"variants: []\n", "variants: {name: a}\n", "variants:\n  - name: a\n  - name: a\n",
                          "variants:\n  - name: a\n    sett: {model: k3}\n", "variants:\n  - name: a\n    set: 3\n",
                          "variants:\n  - name: a\n    set: {parallel: {epp: 2}}\n"}) {
    EXPECT_THROW(parse_variants(kNamedBase + bad, "base.yaml"), core::InputError) << bad;
  }
}

}  // namespace
}  // namespace k3::sweep
