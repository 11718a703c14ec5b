// The HTML document: structure, escaping, exact values, no network references, write errors.
#include <gtest/gtest.h>

#include <cstdlib>

#include "reports/report.hpp"
#include "core/error.hpp"
#include "tests/reports/html_scan.hpp"
#include "tests/support/run_k3sim.hpp"

using namespace k3::reports;

namespace {
Report sample() {
  Report r("K3 <vs> k3-448", "default scenario");
  Section& s = r.add_section("summary", "Summary & cards");
  s.cards({{"Step time", 1.0 / 3.0, "s", "/step_time_s", "per step"}});
  BarChart c;
  c.title = "Breakdown";
  c.categories = {"K3"};
  c.series = {{"compute", {1}}};
  s.chart(bar_chart(c), "caption <b>");
  Table t({{"Bytes per token", "B"}, {"Name", ""}});
  t.add_row({Cell::of_number(27648, "/kv/bytes_per_token"), Cell::of_text("<script>alert(1)</script>")});
  s.table(t);
  Blocks a, b;
  a.paragraph("first");
  b.paragraph("second");
  s.tabs({{"K3", a}, {"k3-448", b}});
  r.add_run_info({"k3sim kv k3", "k3sim 0.1.0", 7, "default", "model: k3\n", {{"HBM", "141 GB", "H200 datasheet"}}});
  return r;
}
}  // namespace

TEST(Report, DocumentHasSectionsNavigationAndScript) {
  const std::string html = sample().html();
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find(R"(<section id="summary" class="section"><h2>Summary &amp; cards</h2>)"), std::string::npos);
  EXPECT_NE(html.find(R"(<section id="scenario")"), std::string::npos);
  EXPECT_NE(html.find(R"(<a href="#scenario">)"), std::string::npos);
  EXPECT_NE(html.find("Content-Security-Policy"), std::string::npos);
  EXPECT_NE(html.find("H200 datasheet"), std::string::npos);
  EXPECT_NE(html.find("<td>7</td>"), std::string::npos);  // the seed
  EXPECT_NE(html.find(R"(class="tab-button active" data-tab="0">K3</button>)"), std::string::npos);
}

TEST(Report, UserTextIsEscaped) {
  const std::string html = sample().html();
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("<title>K3 &lt;vs&gt; k3-448</title>"), std::string::npos);
  EXPECT_NE(html.find("caption &lt;b&gt;"), std::string::npos);
}

TEST(Report, NumbersCarryTheirExactValueAndJsonKey) {
  const std::string html = sample().html();
  // 1/3 is shown rounded to 4 significant digits but carried exactly.
  const auto keyed = k3::test::keyed_numbers(html);
  ASSERT_EQ(keyed.size(), 2u);
  EXPECT_EQ(keyed[0].first, "/step_time_s");
  EXPECT_EQ(keyed[0].second, 1.0 / 3.0);
  EXPECT_NE(html.find(R"(data-key="/step_time_s">0.3333)"), std::string::npos);
  EXPECT_NE(html.find(R"(data-value="27648" data-key="/kv/bytes_per_token">27,648</td>)"), std::string::npos);
  EXPECT_NE(html.find("<th scope=\"col\" title=\"Click to sort\">Bytes per token (B)</th>"), std::string::npos);
}

TEST(Report, ReferencesNothingOverTheNetwork) {
  const std::string html = sample().html();
  // The only URL-like text allowed is the SVG namespace, which browsers never fetch.
  std::size_t urls = 0;
  for (auto p = html.find("//"); p != std::string::npos; p = html.find("//", p + 2)) {
    if (p > 0 && html[p - 1] == ':') {
      EXPECT_EQ(html.compare(p - 5, 26, "http://www.w3.org/2000/svg"), 0) << html.substr(p - 8, 40);
      ++urls;
    }
  }
  EXPECT_EQ(urls, 1u);  // one chart, one namespace
}

TEST(Report, RejectsBadOrDuplicateSectionIds) {
  Report r("t");
  r.add_section("kv-cache", "KV");
  EXPECT_THROW(r.add_section("kv-cache", "again"), k3::core::InternalError);
  EXPECT_THROW(r.add_section("Has Space", "x"), k3::core::InternalError);
  EXPECT_THROW(r.add_section("", "x"), k3::core::InternalError);
}

TEST(Report, WritesTheFileOrReportsBadPath) {
  const std::string path = std::string(K3SIM_BINARY_DIR) + "/report_test_out.html";
  const Report r = sample();
  r.write_html(path);
  EXPECT_EQ(k3::test::slurp(path), r.html());
  std::remove(path.c_str());
  try {
    r.write_html("/nonexistent-folder/x.html");
    FAIL() << "expected InputError";
  } catch (const k3::core::InputError& e) {
    EXPECT_EQ(e.where().file, "--report");
  }
}

TEST(Report, TableRowWithWrongWidthThrows) {
  Table t({{"a", ""}, {"b", ""}});
  EXPECT_THROW(t.add_row({Cell::of_text("only one")}), k3::core::InternalError);
}
