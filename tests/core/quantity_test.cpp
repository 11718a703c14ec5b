#include <gtest/gtest.h>

#include "core/quantity.hpp"

using k3::core::parse_quantity;
using k3::core::parse_quantity_list;

TEST(Quantity, PlainAndSuffixed) {
  EXPECT_EQ(parse_quantity("4096"), 4096.0);
  EXPECT_EQ(parse_quantity("1e6"), 1e6);
  EXPECT_EQ(parse_quantity("128K"), 131072.0);   // context lengths: K = 1024
  EXPECT_EQ(parse_quantity("1M"), 1048576.0);
  EXPECT_EQ(parse_quantity("1MiB"), 1048576.0);
  EXPECT_EQ(parse_quantity("4GiB"), 4.0 * 1073741824.0);
  EXPECT_EQ(parse_quantity("1.5GB"), 1.5e9);
  EXPECT_EQ(parse_quantity(" 7 "), 7.0);
}

TEST(Quantity, RejectsMalformed) {
  EXPECT_FALSE(parse_quantity(""));
  EXPECT_FALSE(parse_quantity("abc"));
  EXPECT_FALSE(parse_quantity("12 parsecs"));
  EXPECT_FALSE(parse_quantity("1..2"));
}

TEST(Quantity, Ranges) {
  // 1MiB:8MiB doubles: 1, 2, 4, 8 MiB.
  auto r = parse_quantity_list("1MiB:8MiB");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->size(), 4u);
  EXPECT_EQ(r->back(), 8.0 * 1048576.0);
  auto g = parse_quantity_list("128:1024:x2");
  ASSERT_TRUE(g);
  EXPECT_EQ(*g, (std::vector<double>{128, 256, 512, 1024}));
  auto a = parse_quantity_list("8:32:+8");
  ASSERT_TRUE(a);
  EXPECT_EQ(*a, (std::vector<double>{8, 16, 24, 32}));
  auto l = parse_quantity_list("8,16,64");
  ASSERT_TRUE(l);
  EXPECT_EQ(*l, (std::vector<double>{8, 16, 64}));
  EXPECT_FALSE(parse_quantity_list("8:4"));      // empty range
  EXPECT_FALSE(parse_quantity_list("8:16:x1"));  // factor must grow
  EXPECT_FALSE(parse_quantity_list("8,,16"));
}

TEST(Quantity, Formatting) {
  EXPECT_EQ(k3::core::format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(k3::core::format_bytes(100), "100 B");
  EXPECT_EQ(k3::core::format_seconds(2.5e-6), "2.50 us");
  EXPECT_EQ(k3::core::format_count(2.78e12), "2.780T");
}
