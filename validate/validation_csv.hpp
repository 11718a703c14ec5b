#pragma once
// Reads the published CSVs of shared/validation: '#' lines are provenance comments (kept as the source of
// every row), the first other line is the header.
#include <map>
#include <string>
#include <vector>

namespace k3::validate {

struct PublishedTable {
  std::string file;
  std::string provenance;  // the '#' lines joined
  std::vector<std::map<std::string, std::string>> rows;

  // The cell as a number; core::InputError naming file, column and line when absent or not a number.
  double number(std::size_t row, const std::string& column) const;
  const std::string& text(std::size_t row, const std::string& column) const;
};

PublishedTable read_published_csv(const std::string& path);

}  // namespace k3::validate
