#include "reports/table.hpp"

#include <fmt/format.h>

#include "reports/text.hpp"
#include "core/error.hpp"

namespace k3::reports {

Cell Cell::of_text(std::string text) { return Cell{std::move(text), std::nullopt, {}}; }

Cell Cell::of_number(double value, std::string key, int significant) {
  return Cell{display_number(value, significant), value, std::move(key)};
}

Table::Table(std::vector<Column> columns) : columns_(std::move(columns)) {
  K3SIM_ASSERT(!columns_.empty(), "a table needs at least one column");
}

Table& Table::caption(std::string text) {
  caption_ = std::move(text);
  return *this;
}

Table& Table::add_row(std::vector<Cell> cells) {
  K3SIM_ASSERT(cells.size() == columns_.size(),
               fmt::format("table row has {} cells for {} columns", cells.size(), columns_.size()));
  rows_.push_back(std::move(cells));
  return *this;
}

std::string Table::html() const {
  std::string out = R"(<div class="table-wrap"><table class="data sortable">)";
  if (!caption_.empty()) out += fmt::format("<caption>{}</caption>", escape_html(caption_));
  out += "<thead><tr>";
  for (const auto& c : columns_) {
    out += fmt::format(R"(<th scope="col" title="Click to sort">{}</th>)", escape_html(with_unit(c.name, c.unit)));
  }
  out += "</tr></thead><tbody>";
  for (const auto& row : rows_) {
    out += "<tr>";
    for (const auto& cell : row) {
      if (cell.value) {
        std::string attrs = fmt::format(R"( class="num" data-value="{}")", exact_number(*cell.value));
        if (!cell.key.empty()) attrs += fmt::format(R"( data-key="{}")", escape_html(cell.key));
        out += fmt::format("<td{}>{}</td>", attrs, escape_html(cell.text));
      } else {
        out += fmt::format("<td>{}</td>", escape_html(cell.text));
      }
    }
    out += "</tr>";
  }
  out += "</tbody></table></div>";
  return out;
}

}  // namespace k3::reports
