#include "validate/validation_csv.hpp"

#include <charconv>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace k3::validate {

namespace {

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) out.push_back(cell);
  return out;
}

// Data lines are numbered after the header so that errors can point at the file line.
int file_line(const PublishedTable& t, std::size_t row) {
  return std::stoi(t.rows[row].at("__line"));
}

}  // namespace

PublishedTable read_published_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    throw core::InputError({path, "", 0}, "cannot read the published measurements",
                           "the shared/validation folder, or --data DIR pointing at it");
  }
  PublishedTable t;
  t.file = path;
  std::vector<std::string> header;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (line[0] == '#') {
      t.provenance += (t.provenance.empty() ? "" : " ") + line.substr(line.find_first_not_of("# "));
      continue;
    }
    if (header.empty()) {
      header = split(line);
      continue;
    }
    const auto cells = split(line);
    if (cells.size() != header.size()) {
      throw core::InputError({path, "", number}, "row has " + std::to_string(cells.size()) + " cells",
                             std::to_string(header.size()) + " cells, as in the header");
    }
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size(); ++i) row[header[i]] = cells[i];
    row["__line"] = std::to_string(number);
    t.rows.push_back(std::move(row));
  }
  if (t.rows.empty()) throw core::InputError({path, "", number}, "no data rows", "a header line and data rows");
  return t;
}

const std::string& PublishedTable::text(std::size_t row, const std::string& column) const {
  auto it = rows.at(row).find(column);
  if (it == rows.at(row).end()) {
    throw core::InputError({file, column, file_line(*this, row)}, "column missing", "the published header");
  }
  return it->second;
}

double PublishedTable::number(std::size_t row, const std::string& column) const {
  const auto& s = text(row, column);
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) {
    throw core::InputError({file, column, file_line(*this, row)}, "'" + s + "' is not a number", "a number");
  }
  return v;
}

}  // namespace k3::validate
