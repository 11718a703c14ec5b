// Escaping, number formatting and axis ticks: the pieces every chart and table relies on.
#include <gtest/gtest.h>

#include <cstdlib>

#include "reports/charts/scale.hpp"
#include "reports/text.hpp"
#include "core/error.hpp"

using namespace k3::reports;

TEST(ReportText, EscapesEveryMarkupCharacter) {
  EXPECT_EQ(escape_html(R"(<a href="x">&'b)"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;b");
  EXPECT_EQ(escape_html("plain 1.5 ms"), "plain 1.5 ms");
}

TEST(ReportText, ExactNumberRoundTrips) {
  for (const double v : {0.1, 1.0 / 3.0, 2.78e12, 27648.0, 1e-5, -7.25}) {
    EXPECT_EQ(std::strtod(exact_number(v).c_str(), nullptr), v) << exact_number(v);
  }
  EXPECT_EQ(exact_number(0.1), "0.1");
  EXPECT_EQ(exact_number(27648.0), "27648");
}

TEST(ReportText, DisplayNumberKeepsSignificantDigits) {
  // 1234567 is over a million: 1.234567 M to 4 significant digits, 1.235 M (issue 47: no 7-digit number without a
  // prefix); 999999 stays grouped; 2.78e12 is 2.78 T; 1.9789e15 FLOP/s is 1.979 P.
  EXPECT_EQ(display_number(1234567.0), "1.235 M");
  EXPECT_EQ(display_number(999999.0), "999,999");
  EXPECT_EQ(display_number(2.78e12), "2.78 T");
  EXPECT_EQ(display_number(1.9789e15), "1.979 P");
  // 0.012346: leading digit at 1e-2, 4 significant -> 5 decimals -> 0.01235 (rounded half up from ...46).
  EXPECT_EQ(display_number(0.012346), "0.01235");
  // 1.5 with 4 significant -> "1.500" -> trailing zeros dropped.
  EXPECT_EQ(display_number(1.5), "1.5");
  EXPECT_EQ(display_number(-2048.0), "-2,048");
  // Down to 1e-6 decimals keep 4 significant digits: 2.5e-5 -> 0.00002500 -> 0.000025; -7.566e-4 -> -0.0007566.
  // Below 1e-6 scientific with 3 decimals in the mantissa.
  EXPECT_EQ(display_number(2.5e-5), "0.000025");
  EXPECT_EQ(display_number(-7.566e-4), "-0.0007566");
  EXPECT_EQ(display_number(2.5e-7), "2.500e-07");
  EXPECT_EQ(display_number(0.0), "0");
}

TEST(ReportText, TickLabelsAreCompact) {
  EXPECT_EQ(tick_label(1500), "1500");  // below 10k stays plain
  EXPECT_EQ(tick_label(12000), "12k");
  EXPECT_EQ(tick_label(2e9), "2G");
  EXPECT_EQ(tick_label(0.25), "0.25");
  EXPECT_EQ(tick_label(1e-4), "1e-4");
  EXPECT_EQ(with_unit("Step time", "ms"), "Step time (ms)");
  EXPECT_EQ(with_unit("Layer", ""), "Layer");
}

TEST(ReportScale, NiceTicksEndOnRoundNumbers) {
  // Range 97 over 5 steps = 19.4 raw; the next of 1, 2, 5 x 10 is 20: 0, 20, ..., 100.
  const auto t = nice_ticks(0, 97, 5);
  ASSERT_EQ(t.size(), 6u);
  EXPECT_DOUBLE_EQ(t.front(), 0);
  EXPECT_DOUBLE_EQ(t[1], 20);
  EXPECT_DOUBLE_EQ(t.back(), 100);
  // A single value 0.3 widens by half its size to [0.15, 0.45]; raw step 0.06 -> 0.1; ticks 0.1 .. 0.5.
  const auto s = nice_ticks(0.3, 0.3, 5);
  ASSERT_EQ(s.size(), 5u);
  EXPECT_NEAR(s.front(), 0.1, 1e-12);
  EXPECT_NEAR(s.back(), 0.5, 1e-12);
  // Negative ranges: [-35, 12], raw 9.4 -> 10: -40 .. 20.
  const auto n = nice_ticks(-35, 12, 5);
  EXPECT_DOUBLE_EQ(n.front(), -40);
  EXPECT_DOUBLE_EQ(n.back(), 20);
  EXPECT_THROW(nice_ticks(2, 1, 5), k3::core::InternalError);
}

TEST(ReportScale, LogTicksArePowersOfTen) {
  // 3 .. 4000 spans 10^0 .. 10^4, four decades: powers only.
  EXPECT_EQ(log_ticks(3, 4000), (std::vector<double>{1, 10, 100, 1000, 10000}));
  // 2 .. 50 spans two decades: 1-2-5 steps.
  EXPECT_EQ(log_ticks(2, 50), (std::vector<double>{1, 2, 5, 10, 20, 50, 100}));
  // 1e-13 .. 1 is 13 decades: stride ceil(13 / 8) = 2, the top rounded up to 1e1 to end on a stride.
  const auto wide = log_ticks(1e-13, 1);
  ASSERT_EQ(wide.size(), 8u);
  EXPECT_NEAR(wide.front(), 1e-13, 1e-25);
  EXPECT_NEAR(wide[1], 1e-11, 1e-23);
  EXPECT_NEAR(wide.back(), 10, 1e-12);
  EXPECT_THROW(log_ticks(0, 10), k3::core::InternalError);
}

TEST(ReportScale, MapsLinearAndLog) {
  const Scale lin(0, 100, 0, 200, false);
  EXPECT_DOUBLE_EQ(lin(25), 50);
  // y axes run backwards: domain 0..10 onto pixels 300..100; 5 is half way = 200.
  const Scale y(0, 10, 300, 100, false);
  EXPECT_DOUBLE_EQ(y(5), 200);
  // log10(10) is one third of the way from 10^0 to 10^3.
  const Scale lg(1, 1000, 0, 300, true);
  EXPECT_NEAR(lg(10), 100, 1e-9);
  EXPECT_THROW(Scale(0, 10, 0, 1, true), k3::core::InternalError);
}
