#pragma once
// Comma-separated text as the project's data files are written: '#' lines are comments (kept, they carry the
// provenance of the published tables), blank lines are skipped, the first other line is the header and every other
// line a row of as many cells. No quoting: none of the files uses it.
#include <string>
#include <vector>

namespace k3::core {

struct CsvText {
  std::string file;                          // as named in errors
  std::string comments;                      // the '#' lines' text, joined by spaces
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<int> lines;                    // the file line of each row
};

// InputError naming the file and line for a row whose width differs from the header's, or a file with no header.
CsvText parse_csv_text(const std::string& text, const std::string& file);

// The whole of `cell` as a finite number; InputError naming `file`, `column` and `line` otherwise.
double csv_number(const std::string& cell, const std::string& file, const std::string& column, int line);

}  // namespace k3::core
