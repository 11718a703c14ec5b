// The assumptions behind the compared steps: every provenance entry with its value, range and source,
// grouped by kind (datasheet, kernel measurement, collective measurement, assumption), each group collapsible.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/provenance.hpp"
#include "reports/sections/review_parts.hpp"
#include "reports/text.hpp"

namespace k3::reports::review {

void add_assumptions(Report& report, const std::vector<VariantView>& vs) {
  Section& s = report.add_section("assumptions", "Assumptions: what the numbers rest on");
  s.paragraph("Every number the steps read, with its plausible range and its source (the provenance registry, "
              "core/provenance.hpp); the uncertainty band samples these ranges. `k3sim run --samples N` ranks them "
              "by how far each moves the step time (the tornado chart of the run report). Click a group to open it.");
  // kind -> rows, in first-seen order of ids over the variants (values differ only where a variant's own
  // scenario set them).
  std::map<std::string, std::vector<std::pair<std::size_t, std::size_t>>> by_kind;  // (variant, entry)
  std::vector<std::string> seen;
  for (std::size_t v = 0; v < vs.size(); ++v) {
    const auto& prov = vs[v].result().at("provenance");
    for (std::size_t i = 0; i < prov.size(); ++i) {
      const auto id = prov[i].at("id").get<std::string>();
      if (std::find(seen.begin(), seen.end(), id) != seen.end()) continue;
      seen.push_back(id);
      by_kind[prov[i].at("kind").get<std::string>()].emplace_back(v, i);
    }
  }
  for (const auto& [kind, rows] : by_kind) {
    Blocks inner;
    Table t({{"Entry", ""}, {"Value", ""}, {"Range", ""}, {"Source", ""}});
    for (const auto& [v, i] : rows) {
      const auto& e = vs[v].result().at("provenance")[i];
      const double value = e.at("value").get<double>();
      const auto unit = e.at("unit").get<std::string>();
      // In the unit's human scale, as the run report and `k3sim run` print them (issue 47).
      const auto text = [&unit](double x) { return core::format_value(x, unit); };
      const double low = e.at("low").get<double>(), high = e.at("high").get<double>();
      t.add_row({Cell::of_text(e.at("id").get<std::string>()),
                 Cell{text(value), value, fmt::format("{}/result/provenance/{}/value", vs[v].pointer, i)},
                 Cell::of_text(low == high ? "exact" : text(low) + " .. " + text(high)),
                 Cell::of_text(e.at("source").get<std::string>())});
    }
    inner.table(t);
    s.details(fmt::format("{} ({} entries)", kind, rows.size()), inner);
  }
  Blocks notes;
  Table n(std::vector<Column>{{"Note", ""}});
  for (const auto& a : vs.front().result().at("assumptions")) {
    const auto text = a.get<std::string>();
    const auto head = text.substr(0, text.find(' '));
    if (std::find(seen.begin(), seen.end(), head) == seen.end()) n.add_row({Cell::of_text(text)});
  }
  if (n.rows() > 0) {
    notes.table(n);
    s.details(fmt::format("modelling notes ({})", n.rows()), notes);
  }
}

}  // namespace k3::reports::review
