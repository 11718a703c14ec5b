#pragma once
// Strict YAML input. Every scenario, preset and topology file is read through YamlValue so that a bad
// value always produces one InputError naming the file, the dotted key, the line and what is allowed,
// and an unknown key is an error rather than silently ignored.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace k3::core {

class YamlValue {
 public:
  // Throws InputError when the file is missing or is not valid YAML (with the parser's line).
  static YamlValue parse_file(const std::string& path);
  static YamlValue parse_string(const std::string& text, const std::string& source_name);

  bool is_map() const { return node_.IsMap(); }
  bool is_sequence() const { return node_.IsSequence(); }
  bool is_scalar() const { return node_.IsScalar(); }
  bool is_null() const { return !node_.IsDefined() || node_.IsNull(); }

  const std::string& file() const { return *file_; }
  const std::string& key_path() const { return path_; }
  int line() const;  // 1-based, 0 when unknown
  // Where this value came from: its file and line, or "--set" for a value a --set override wrote.
  InputLocation where() const;
  // The dotted keys --set overrides wrote into this document (call on the root, after applying them): errors
  // about them, or about keys and values inside them, name "--set" rather than a line of the file.
  void mark_set_by_override(std::vector<std::string> keys);

  bool has(std::string_view key) const;
  // A required key of a map; InputError naming the key when missing.
  YamlValue at(std::string_view key) const;
  std::optional<YamlValue> find(std::string_view key) const;
  std::vector<YamlValue> items() const;                                // a sequence's elements
  std::vector<std::pair<std::string, YamlValue>> entries() const;      // a map's entries, in file order
  std::vector<std::string> keys() const;

  // Fails on the first key not in `allowed`, pointing at its line.
  void allow_only(std::initializer_list<std::string_view> allowed) const;
  void allow_only(const std::vector<std::string>& allowed) const;

  std::string as_string() const;
  bool as_bool() const;
  double as_double() const;
  std::int64_t as_int() const;
  double as_positive() const;          // > 0
  double as_non_negative() const;      // >= 0
  std::int64_t as_positive_int() const;
  std::int64_t as_non_negative_int() const;
  // Accepts plain numbers and sizes with suffixes: 4096, 128K, 1M, 1MiB, 4GiB, 1e6 (see parse_quantity).
  double as_quantity() const;
  std::string as_enum(std::initializer_list<std::string_view> allowed) const;
  std::string as_enum(const std::vector<std::string>& allowed) const;

  // Optional-with-default forms for map members.
  std::string string_or(std::string_view key, std::string fallback) const;
  double double_or(std::string_view key, double fallback) const;
  std::int64_t int_or(std::string_view key, std::int64_t fallback) const;
  bool bool_or(std::string_view key, bool fallback) const;

  [[noreturn]] void fail(const std::string& problem, const std::string& allowed = {}) const;

  const YAML::Node& node() const { return node_; }

 private:
  YamlValue(YAML::Node node, std::shared_ptr<const std::string> file, std::string path, int parent_line);
  YamlValue child(YAML::Node node, std::string path, int parent_line) const;
  bool set_by_override(const std::string& path) const;
  std::string describe_scalar() const;

  YAML::Node node_;
  std::shared_ptr<const std::vector<std::string>> set_keys_;
  std::shared_ptr<const std::string> file_;
  std::string path_;
  int parent_line_ = 0;
};

// Joins allowed names for an error message: "a, b or c".
std::string join_allowed(const std::vector<std::string>& names);
std::string join_allowed(std::initializer_list<std::string_view> names);

}  // namespace k3::core
