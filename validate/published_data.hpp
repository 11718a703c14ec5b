#pragma once
// The published measurements `k3sim validate` compares against, shipped with the project in validate/data so that
// a fresh clone validates without ../shared. Each shipped file is derived from its shared/validation original by
// `k3sim validate --import-data DIR --out validate/data`: the publisher's provenance lines are kept, a line says
// where the file was derived from, and every row gains a `source` column naming the publication it comes from.
#include <string>
#include <vector>

namespace k3::validate {

// One published table: its file name (the same in shared/validation and validate/data) and the short citation
// each of its rows carries (no commas: the project's CSVs are unquoted).
struct PublishedFile {
  const char* file;
  const char* source;
};

// The tables `k3sim validate` reads, in the order it runs them.
const std::vector<PublishedFile>& published_files();

// The derived text of one table: `original` is the shared/validation file's text, `name` its file name (for
// errors and the derivation line). Throws core::InputError naming the file for a table without rows.
std::string derive_published_table(const std::string& original, const PublishedFile& file);

// Reads every table of published_files() from `from_dir` and writes its derived text to `to_dir` (created when
// missing). Returns the paths written. Throws core::InputError naming the file that cannot be read or written.
std::vector<std::string> import_published_data(const std::string& from_dir, const std::string& to_dir);

}  // namespace k3::validate
