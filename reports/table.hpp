#pragma once
// Tables for the HTML report: units in the column headers, numbers right-aligned and sortable (a click on
// a header sorts by the exact value carried in data-value, not by the rounded text).
#include <optional>
#include <string>
#include <vector>

namespace k3::reports {

struct Column {
  std::string name;  // "Bytes per token"
  std::string unit;  // "B"; the header reads "Bytes per token (B)"
};

struct Cell {
  std::string text;             // what the reader sees
  std::optional<double> value;  // the exact number behind it (numbers only)
  std::string key;              // JSON pointer into the command's --json output, "" when none

  static Cell of_text(std::string text);
  // `key` ties the cell to the --json output (tests compare the two); shown with `significant` digits.
  static Cell of_number(double value, std::string key = {}, int significant = 4);
};

class Table {
 public:
  explicit Table(std::vector<Column> columns);
  Table& caption(std::string text);
  // Throws core::InternalError when the row does not have one cell per column.
  Table& add_row(std::vector<Cell> cells);
  std::size_t rows() const { return rows_.size(); }
  std::string html() const;

 private:
  std::vector<Column> columns_;
  std::string caption_;
  std::vector<std::vector<Cell>> rows_;
};

}  // namespace k3::reports
