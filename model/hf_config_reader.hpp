#pragma once
// The config.json reader of hf_config.cpp and hf_families.cpp: typed reads of one JSON object, each error naming the file, the key (with
// its nested prefix) and the line the key stands on.
#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/json_file.hpp"
#include "core/yaml_input.hpp"

namespace k3::model {

// Reads one JSON object (the root, or Llama 4's text_config) of a config.json, locating keys in the text.
class HfConfigReader {
 public:
  HfConfigReader(const std::string& text, std::string file) : text_(text), file_(std::move(file)) {
    root_ = core::parse_json_text(text, file_, "a JSON object");
    if (!root_.is_object()) throw core::InputError({file_, "", 1}, "expected a JSON object", "a config.json object");
    scope_ = &root_;
  }

  // Reads from a nested object from now on (keys are then looked up after its position in the text).
  void enter(const std::string& key) {
    const nlohmann::json* v = find(key);
    if (!v || !v->is_object()) throw core::InputError(where(key), v ? "expected an object" : "required key is missing",
                                                      "a JSON object holding the text model");
    scope_pos_ = text_.find("\"" + key + "\"", scope_pos_);
    prefix_ += key + ".";
    scope_ = v;
  }
  const nlohmann::json& scope() const { return *scope_; }
  const nlohmann::json& root() const { return root_; }
  const std::string& prefix() const { return prefix_; }
  const std::string& file() const { return file_; }

  // Line of the first occurrence of "key": at or after the current scope (0 when it does not appear).
  int line_of(const std::string& key) const {
    const auto pos = text_.find("\"" + key + "\"", scope_pos_ == std::string::npos ? 0 : scope_pos_);
    if (pos == std::string::npos) return 0;
    return 1 + static_cast<int>(std::count(text_.begin(), text_.begin() + static_cast<long>(pos), '\n'));
  }
  core::InputLocation where(const std::string& key) const { return {file_, prefix_ + key, line_of(key)}; }

  const nlohmann::json* find(const std::string& key) const { return find_in(*scope_, key); }
  static const nlohmann::json* find_in(const nlohmann::json& obj, const std::string& key) {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return nullptr;
    return &*it;
  }
  long long integer(const std::string& key) const { return integer_in(*scope_, key); }
  long long integer_in(const nlohmann::json& obj, const std::string& key) const {
    const nlohmann::json* v = find_in(obj, key);
    if (!v) throw core::InputError(where(key), "required key is missing", "an integer");
    if (!v->is_number_integer()) throw core::InputError(where(key), "expected an integer, got " + v->dump(), "an integer");
    return v->get<long long>();
  }
  long long integer_or(const std::string& key, long long fallback) const {
    return find(key) ? integer(key) : fallback;
  }
  // The first of several spellings used by different families; fallback when none is present.
  long long integer_any(std::initializer_list<const char*> keys, std::optional<long long> fallback = {}) const {
    for (const char* k : keys) if (find(k)) return integer(k);
    if (fallback) return *fallback;
    throw core::InputError(where(*keys.begin()), "required key is missing",
                           core::join_allowed(std::vector<std::string>(keys.begin(), keys.end())));
  }
  double number_or(const std::string& key, double fallback) const {
    const nlohmann::json* v = find(key);
    if (!v) return fallback;
    if (!v->is_number()) throw core::InputError(where(key), "expected a number, got " + v->dump(), "a number");
    return v->get<double>();
  }
  bool boolean_or(const std::string& key, bool fallback) const {
    const nlohmann::json* v = find(key);
    if (!v) return fallback;
    if (!v->is_boolean()) throw core::InputError(where(key), "expected true or false, got " + v->dump(), "true or false");
    return v->get<bool>();
  }
  // A key whose only modelled value is false (its true adds something k3sim does not count).
  void require_false(const std::string& key, const std::string& why) const {
    if (boolean_or(key, false)) throw core::InputError(where(key), "true is not modelled: " + why, "false or absent");
  }
  // Layer indices; `one_based` says how the file numbers them. Returned 0-based, checked against n_layers.
  std::vector<long long> layer_list_in(const nlohmann::json& obj, const std::string& key, long long n_layers, bool one_based) const {
    const std::string allowed = fmt::format("a list of {} layer numbers {} to {}", one_based ? "1-based" : "0-based",
                                            one_based ? 1 : 0, one_based ? n_layers : n_layers - 1);
    const nlohmann::json* v = find_in(obj, key);
    if (!v) throw core::InputError(where(key), "required key is missing", allowed);
    if (!v->is_array()) throw core::InputError(where(key), "expected a list", allowed);
    std::vector<long long> out;
    for (const auto& e : *v) {
      if (!e.is_number_integer()) throw core::InputError(where(key), "expected integers, got " + e.dump(), allowed);
      const long long i = e.get<long long>() - (one_based ? 1 : 0);
      if (i < 0 || i >= n_layers) throw core::InputError(where(key), fmt::format("layer {} is outside the model", e.dump()), allowed);
      out.push_back(i);
    }
    return out;
  }
  std::vector<long long> layer_list(const std::string& key, long long n_layers, bool one_based) const {
    return layer_list_in(*scope_, key, n_layers, one_based);
  }
  // One string per layer (GPT-OSS layer_types), each one of `allowed`.
  std::vector<std::string> string_per_layer(const std::string& key, long long n_layers, const std::vector<std::string>& allowed) const {
    const nlohmann::json* v = find(key);
    const std::string what = fmt::format("a list of {} entries, each {}", n_layers, core::join_allowed(allowed));
    if (!v || !v->is_array()) throw core::InputError(where(key), v ? "expected a list" : "required key is missing", what);
    if (static_cast<long long>(v->size()) != n_layers) {
      throw core::InputError(where(key), fmt::format("{} entries for {} layers", v->size(), n_layers), what);
    }
    std::vector<std::string> out;
    for (const auto& e : *v) {
      if (!e.is_string() || std::find(allowed.begin(), allowed.end(), e.get<std::string>()) == allowed.end()) {
        throw core::InputError(where(key), "unknown layer type " + e.dump(), what);
      }
      out.push_back(e.get<std::string>());
    }
    return out;
  }

 private:
  const std::string& text_;
  std::string file_;
  nlohmann::json root_;
  const nlohmann::json* scope_ = nullptr;
  std::size_t scope_pos_ = 0;
  std::string prefix_;
};

}  // namespace k3::model
