#pragma once
// Reads typed values out of a JSON object of a user-named file and names the dotted key in every error, so that a
// bad value in a profile or table file is one InputError (exit 2), never nlohmann's exception.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace k3::core {

class JsonReader {
 public:
  JsonReader(const std::string& file, const nlohmann::json& j, std::string path) : file_(file), j_(j), path_(std::move(path)) {}

  std::string key(std::string_view k) const { return path_.empty() ? std::string(k) : path_ + "." + std::string(k); }
  [[noreturn]] void fail(std::string_view k, const std::string& problem, const std::string& allowed = {}) const {
    throw core::InputError({file_, key(k), 0}, problem, allowed);
  }
  const nlohmann::json& at(std::string_view k) const {
    if (!j_.is_object()) throw core::InputError({file_, path_, 0}, "expected a JSON object");
    auto it = j_.find(std::string(k));
    if (it == j_.end()) fail(k, "missing key");
    return *it;
  }
  bool has(std::string_view k) const { return j_.is_object() && j_.contains(std::string(k)); }
  std::string str(std::string_view k) const {
    const nlohmann::json& v = at(k);
    if (!v.is_string()) fail(k, "expected a string");
    return v.get<std::string>();
  }
  double number(std::string_view k) const {
    const nlohmann::json& v = at(k);
    if (!v.is_number() || !std::isfinite(v.get<double>())) fail(k, "expected a finite number");
    return v.get<double>();
  }
  double positive(std::string_view k) const {
    const double v = number(k);
    if (v <= 0) fail(k, fmt::format("must be > 0, got {}", v));
    return v;
  }
  double non_negative(std::string_view k) const {
    const double v = number(k);
    if (v < 0) fail(k, fmt::format("must be >= 0, got {}", v));
    return v;
  }
  JsonReader child(std::string_view k) const {
    const nlohmann::json& v = at(k);
    if (!v.is_object()) fail(k, "expected a JSON object");
    return JsonReader(file_, v, key(k));
  }
  const nlohmann::json& raw() const { return j_; }

 private:
  const std::string& file_;
  const nlohmann::json& j_;
  std::string path_;
};

}  // namespace k3::core
