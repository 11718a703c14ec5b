#pragma once
// Reads the published CSVs in shared/validation: '#' lines are provenance comments, the first other line
// is the header.
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace k3::test {

using CsvRow = std::map<std::string, std::string>;

inline std::vector<CsvRow> read_validation_csv(const std::string& name) {
  std::ifstream in(std::string(K3SIM_SOURCE_DIR) + "/../shared/validation/" + name);
  std::vector<std::string> header;
  std::vector<CsvRow> rows;
  std::string line;
  auto split = [](const std::string& l) {
    std::vector<std::string> out;
    std::stringstream ss(l);
    std::string cell;
    while (std::getline(ss, cell, ',')) out.push_back(cell);
    return out;
  };
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header.empty()) { header = split(line); continue; }
    const auto cells = split(line);
    CsvRow row;
    for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

}  // namespace k3::test
