#include "core/json_file.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/text_file.hpp"

namespace k3::core {

nlohmann::json parse_json_text(const std::string& text, const std::string& file, const std::string& expected) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    const auto upto = std::min<std::size_t>(e.byte, text.size());
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(upto), '\n'));
    throw InputError({file, "", line}, std::string("malformed JSON: ") + e.what(), expected);
  } catch (const nlohmann::json::exception& e) {
    // Well-formed JSON the parser still refuses, e.g. a number beyond double range.
    throw InputError({file, "", 0}, std::string("unreadable JSON: ") + e.what(), expected);
  }
}

nlohmann::json read_json_file(const std::string& path, const std::string& expected) {
  return parse_json_text(read_text_file(path, expected), path, expected);
}

}  // namespace k3::core
