#include "sim/core/text_file.hpp"

#include <fstream>
#include <sstream>
#include <system_error>

#include "sim/core/error.hpp"

namespace k3::core {

bool path_exists(const std::filesystem::path& path) noexcept {
  std::error_code ec;
  return std::filesystem::exists(path, ec) && !ec;
}

std::string read_text_file(const std::string& path, const std::string& expected) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError({path, "", 0}, "is a directory, not a file", expected);
  std::ifstream in(path);
  if (!in) throw InputError({path, "", 0}, path_exists(path) ? "cannot read the file" : "no such file", expected);
  std::stringstream buf;
  buf << in.rdbuf();
  if (in.bad()) throw InputError({path, "", 0}, "cannot read the file", expected);
  return buf.str();
}

}  // namespace k3::core
