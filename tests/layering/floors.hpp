#pragma once
// The floors of the source tree (README "Layout", ../shared/DESIGN.md "Layout"), bottom-up, and the check
// that every `#include "..."` goes down: a file may include its own folder or a folder on a lower floor,
// never a sibling on its own floor or anything above. Sub-folders not listed belong to their parent
// (kernels/gemm is kernels, reports/sections is reports). Like Chromium's checkdeps and LLVM's layering
// check, this reads the text of the sources; it needs no build.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace k3::layering {

struct Floor {
  std::string_view folder;  // relative to the source root, no trailing slash
  double level;             // a folder includes only folders of a lower level (equal: siblings, not allowed)
  std::string_view holds;   // one line, for the README and for messages
};

// The table itself, in floor order.
const std::vector<Floor>& floors();

// The folder of the table that `path` (relative to the root) belongs to: the longest listed prefix;
// nullptr when none (files at the root, scenarios, scripts).
const Floor* floor_of(std::string_view path);

struct Violation {
  std::string file;      // relative to the root
  int line = 0;
  std::string included;  // the include as written
  std::string why;
  std::string text() const { return file + ":" + std::to_string(line) + ": includes \"" + included + "\": " + why; }
};

// The regular files under `root` that `keep` accepts, sorted. Build folders, .git, hidden and data folders are not
// entered: besides holding no sources, the build tree is where other tests write and remove files meanwhile.
std::vector<std::filesystem::path> files_under(const std::filesystem::path& root,
                                               bool (*keep)(const std::filesystem::path&));

// Reads every C++ and CUDA source under `root` (build folders, .git and data folders skipped) and lists
// each include that goes up or sideways, or names a folder the table does not know.
std::vector<Violation> find_violations(const std::filesystem::path& root);

}  // namespace k3::layering
