#include "validate/validation_csv.hpp"

#include <fstream>
#include <iterator>

#include "core/csv_text.hpp"
#include "core/error.hpp"

namespace k3::validate {

namespace {

// Data lines are numbered after the header so that errors can point at the file line.
int file_line(const PublishedTable& t, std::size_t row) {
  return std::stoi(t.rows[row].at("__line"));
}

}  // namespace

PublishedTable read_published_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    throw core::InputError({path, "", 0}, "cannot read the published measurements",
                           "validate/data of the source tree, or --data DIR pointing at a folder of the published CSVs");
  }
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto csv = core::parse_csv_text(text, path);
  PublishedTable t;
  t.file = path;
  t.provenance = csv.comments;
  for (std::size_t r = 0; r < csv.rows.size(); ++r) {
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < csv.header.size(); ++i) row[csv.header[i]] = csv.rows[r][i];
    row["__line"] = std::to_string(csv.lines[r]);
    t.rows.push_back(std::move(row));
  }
  if (t.rows.empty()) throw core::InputError({path, "", 0}, "no data rows", "a header line and data rows");
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
  return core::csv_number(text(row, column), file, column, file_line(*this, row));
}

}  // namespace k3::validate
