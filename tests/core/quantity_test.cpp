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
  EXPECT_EQ(k3::core::format_seconds(19.9), "19.900 s");
  EXPECT_EQ(k3::core::format_seconds(900), "15.0 min");      // 900 / 60
  EXPECT_EQ(k3::core::format_seconds(36000), "10.0 h");      // 36,000 / 3,600
  EXPECT_EQ(k3::core::format_seconds(4.6e6), "53.2 days");   // 4.6e6 / 86,400 = 53.24
  EXPECT_EQ(k3::core::format_count(2.78e12), "2.780T");
}

// Issue 47: the compare tables print each value in its unit's human scale. 1.329e6 tokens/s is 1.33M; 4.846e10 B
// is 4.846e10 / 2^30 = 45.13 GiB; 1.07e6 USD is $1.07M; an MFU of 0.4175 is 41.8% (rounded to one decimal);
// 3.484e-3 s is 3.48 ms and 23,061 ms is 23.061 s; a unit it has no scale for keeps 4 significant digits below
// 10,000 and takes a count's suffix above.
TEST(Quantity, FormatInUnitUsesTheUnitsHumanScale) {
  EXPECT_EQ(k3::core::format_in_unit(1.329e6, "tokens/s"), "1.33M tokens/s");
  EXPECT_EQ(k3::core::format_in_unit(4.846e10, "B"), "45.13 GiB");
  EXPECT_EQ(k3::core::format_in_unit(1.07e6, "USD"), "$1.07M");
  EXPECT_EQ(k3::core::format_in_unit(0.4175, "fraction of BF16 peak"), "41.8% of BF16 peak");
  EXPECT_EQ(k3::core::format_in_unit(3.484e-3, "s"), "3.48 ms");
  EXPECT_EQ(k3::core::format_in_unit(42.84, "ms"), "42.84 ms");
  EXPECT_EQ(k3::core::format_in_unit(23061, "ms"), "23.061 s");
  EXPECT_EQ(k3::core::format_in_unit(96, ""), "96");
  EXPECT_EQ(k3::core::format_in_unit(23061, "requests"), "23.1K requests");
}

// Context lengths print as they are typed: 131072 = 128 x 1024 is "128K", 1048576 = 1024^2 is "1M"; 100000 is no
// whole number of 1024s and takes format_count's "100.0K".
TEST(Quantity, FormatBinaryCountWritesWholeKibiCountsAsTyped) {
  EXPECT_EQ(k3::core::format_binary_count(131072), "128K");
  EXPECT_EQ(k3::core::format_binary_count(1048576), "1M");
  EXPECT_EQ(k3::core::format_binary_count(100000), "100.0K");
  EXPECT_EQ(k3::core::format_binary_count(4096), "4K");
}
