#include "core/csv_text.hpp"

#include <charconv>
#include <cmath>
#include <sstream>

#include "core/error.hpp"

namespace k3::core {

namespace {

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();  // a trailing empty cell is a cell
  return out;
}

}  // namespace

CsvText parse_csv_text(const std::string& text, const std::string& file) {
  CsvText csv;
  csv.file = file;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (line[0] == '#') {
      const auto start = line.find_first_not_of("# ");
      if (start != std::string::npos) csv.comments += (csv.comments.empty() ? "" : " ") + line.substr(start);
      continue;
    }
    auto cells = split(line);
    if (csv.header.empty()) {
      csv.header = std::move(cells);
      continue;
    }
    if (cells.size() != csv.header.size()) {
      throw InputError({file, "", number}, "row has " + std::to_string(cells.size()) + " cells",
                       std::to_string(csv.header.size()) + " cells, as in the header");
    }
    csv.rows.push_back(std::move(cells));
    csv.lines.push_back(number);
  }
  if (csv.header.empty()) throw InputError({file, "", 1}, "the file is empty", "a header line, then data rows");
  return csv;
}

double csv_number(const std::string& cell, const std::string& file, const std::string& column, int line) {
  double v = 0;
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  if (ec != std::errc() || end != cell.data() + cell.size() || !std::isfinite(v)) {
    throw InputError({file, column, line}, "'" + cell + "' is not a number", "a finite number");
  }
  return v;
}

}  // namespace k3::core
