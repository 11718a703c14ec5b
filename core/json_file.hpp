#pragma once
// Parsing user-supplied JSON: a malformed document is an InputError naming the file and the line of the
// first fault, never nlohmann's exception escaping as a crash.
#include <nlohmann/json.hpp>

#include <string>

namespace k3::core {

// `expected` says what the file should be, for the error's "allowed" part.
nlohmann::json parse_json_text(const std::string& text, const std::string& file, const std::string& expected);
// read_text_file + parse_json_text.
nlohmann::json read_json_file(const std::string& path, const std::string& expected);

}  // namespace k3::core
