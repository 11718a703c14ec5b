#include "core/text_file.hpp"

#include <cstdint>
#include <fstream>
#include <sstream>
#include <system_error>

#include "core/error.hpp"

namespace k3::core {

bool path_exists(const std::filesystem::path& path) noexcept {
  std::error_code ec;
  return std::filesystem::exists(path, ec) && !ec;
}

std::string read_text_file(const std::string& path, const std::string& expected) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError({path, "", 0}, "is a directory, not a file", expected);
  // A device or FIFO (/dev/zero, a pipe) would never end or never arrive: refuse anything but a regular file,
  // and regular files far larger than any k3sim input.
  const auto status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    throw InputError({path, "", 0}, "is not a regular file (a device, FIFO or socket)", expected);
  }
  constexpr std::uintmax_t kMaxBytes = 256ull << 20;
  const auto size = std::filesystem::is_regular_file(status) ? std::filesystem::file_size(path, ec) : 0;
  if (!ec && size > kMaxBytes) {
    throw InputError({path, "", 0}, std::to_string(size >> 20) + " MiB, larger than any k3sim input",
                     expected + " (at most 256 MiB)");
  }
  std::ifstream in(path);
  if (!in) throw InputError({path, "", 0}, path_exists(path) ? "cannot read the file" : "no such file", expected);
  std::stringstream buf;
  buf << in.rdbuf();
  if (in.bad()) throw InputError({path, "", 0}, "cannot read the file", expected);
  return buf.str();
}

void write_text_file(const std::string& path, const std::string& text, const std::string& flag) {
  std::ofstream out(path);
  if (out) out << text;
  if (!out) throw InputError({flag, "", 0}, "cannot write '" + path + "'", "a writable file path");
}

}  // namespace k3::core
