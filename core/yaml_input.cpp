#include "core/yaml_input.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/quantity.hpp"
#include "core/spelling.hpp"
#include "core/text_file.hpp"

namespace k3::core {

namespace {

std::string join_path(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}

// A mapping key as text; keys that are themselves lists or mappings (valid YAML) are bad input here.
std::string key_text(const YAML::Node& key, const std::string& file, const std::string& path, int line) {
  if (!key.IsScalar()) {
    const int key_line = key.Mark().line >= 0 ? key.Mark().line + 1 : line;
    throw InputError({file, path, key_line}, "a key must be a plain name, not a list or mapping", "a plain key name");
  }
  return key.Scalar();
}

}  // namespace

std::string join_allowed(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += (i + 1 == names.size()) ? " or " : ", ";
    out += names[i];
  }
  return out;
}

std::string join_allowed(std::initializer_list<std::string_view> names) {
  return join_allowed(std::vector<std::string>(names.begin(), names.end()));
}

YamlValue::YamlValue(YAML::Node node, std::shared_ptr<const std::string> file, std::string path, int parent_line)
    : node_(std::move(node)), file_(std::move(file)), path_(std::move(path)), parent_line_(parent_line) {}

YamlValue YamlValue::parse_string(const std::string& text, const std::string& source_name) {
  auto file = std::make_shared<const std::string>(source_name);
  try {
    return YamlValue(YAML::Load(text), file, "", 1);
  } catch (const YAML::ParserException& e) {
    throw InputError({source_name, "", e.mark.line + 1}, "malformed YAML: " + e.msg, "a YAML mapping of keys");
  }
}

YamlValue YamlValue::parse_file(const std::string& path) {
  return parse_string(read_text_file(path, "a readable YAML file"), path);
}

YamlValue YamlValue::child(YAML::Node node, std::string path, int parent_line) const {
  YamlValue v(std::move(node), file_, std::move(path), parent_line);
  v.set_keys_ = set_keys_;
  return v;
}

void YamlValue::mark_set_by_override(std::vector<std::string> keys) {
  set_keys_ = std::make_shared<const std::vector<std::string>>(std::move(keys));
}

bool YamlValue::set_by_override(const std::string& path) const {
  if (!set_keys_) return false;
  return std::any_of(set_keys_->begin(), set_keys_->end(), [&](const std::string& k) {
    return path == k || (path.size() > k.size() && path.starts_with(k) && (path[k.size()] == '.' || path[k.size()] == '['));
  });
}

InputLocation YamlValue::where() const {
  if (set_by_override(path_)) return {"--set on " + *file_, path_, 0};
  return {*file_, path_, line()};
}

int YamlValue::line() const {
  if (node_.IsDefined()) {
    const auto mark = node_.Mark();
    if (mark.line >= 0) return mark.line + 1;
  }
  return parent_line_;
}

bool YamlValue::has(std::string_view key) const {
  return node_.IsMap() && node_[std::string(key)].IsDefined();
}

std::optional<YamlValue> YamlValue::find(std::string_view key) const {
  if (!node_.IsMap()) return std::nullopt;
  YAML::Node value = node_[std::string(key)];
  if (!value.IsDefined()) return std::nullopt;
  return child(value, join_path(path_, key), line());
}

YamlValue YamlValue::at(std::string_view key) const {
  if (!node_.IsMap()) fail("expected a mapping with key '" + std::string(key) + "'", "a YAML mapping");
  auto v = find(key);
  if (!v) {
    throw InputError({*file_, join_path(path_, key), line()}, "required key is missing");
  }
  return *v;
}

std::vector<YamlValue> YamlValue::items() const {
  if (!node_.IsSequence()) fail("expected a list", "a YAML sequence");
  std::vector<YamlValue> out;
  std::size_t i = 0;
  for (const auto& n : node_) out.push_back(child(n, fmt::format("{}[{}]", path_, i++), line()));
  return out;
}

std::vector<std::pair<std::string, YamlValue>> YamlValue::entries() const {
  if (!node_.IsMap()) fail("expected a mapping", "a YAML mapping of keys");
  std::vector<std::pair<std::string, YamlValue>> out;
  for (const auto& kv : node_) {
    const auto key = key_text(kv.first, *file_, path_, line());
    int key_line = kv.first.Mark().line >= 0 ? kv.first.Mark().line + 1 : line();
    out.push_back({key, child(kv.second, join_path(path_, key), key_line)});
  }
  return out;
}

std::vector<std::string> YamlValue::keys() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : entries()) out.push_back(k);
  return out;
}

void YamlValue::allow_only(const std::vector<std::string>& allowed) const {
  if (!node_.IsMap()) fail("expected a mapping", "a YAML mapping of keys");
  for (const auto& kv : node_) {
    const auto key = key_text(kv.first, *file_, path_, line());
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      const std::string problem = "unknown key" + did_you_mean(key, allowed);
      // A key a --set override wrote (a map on its way included) has no line in the file: blame the flag.
      const std::string path = join_path(path_, key);
      if (set_by_override(path) || (set_keys_ && kv.first.Mark().line < 0)) {
        throw InputError({"--set on " + *file_, path, 0}, problem, join_allowed(allowed));
      }
      const int key_line = kv.first.Mark().line >= 0 ? kv.first.Mark().line + 1 : line();
      throw InputError({*file_, path, key_line}, problem, join_allowed(allowed));
    }
  }
}

void YamlValue::allow_only(std::initializer_list<std::string_view> allowed) const {
  allow_only(std::vector<std::string>(allowed.begin(), allowed.end()));
}

void YamlValue::fail(const std::string& problem, const std::string& allowed) const {
  throw InputError(where(), problem, allowed);
}

std::string YamlValue::describe_scalar() const {
  if (!node_.IsDefined() || node_.IsNull()) return "nothing";
  if (node_.IsScalar()) return "'" + node_.Scalar() + "'";
  if (node_.IsSequence()) return "a list";
  return "a mapping";
}

std::string YamlValue::as_string() const {
  if (!node_.IsScalar()) fail("expected a string, got " + describe_scalar(), "a string");
  return node_.Scalar();
}

bool YamlValue::as_bool() const {
  bool out = false;
  if (!node_.IsScalar() || !YAML::convert<bool>::decode(node_, out)) {
    fail("expected true or false, got " + describe_scalar(), "true or false");
  }
  return out;
}

double YamlValue::as_double() const {
  if (node_.IsScalar()) {
    if (auto q = parse_quantity(node_.Scalar())) return *q;
  }
  fail("expected a number, got " + describe_scalar(), "a number such as 4096, 1.5e9 or 128K");
}

double YamlValue::as_quantity() const { return as_double(); }

std::int64_t YamlValue::as_int() const {
  const double d = as_double();
  if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9.0e18) {
    fail("expected an integer, got " + describe_scalar(), "an integer");
  }
  return static_cast<std::int64_t>(d);
}

double YamlValue::as_positive() const {
  const double d = as_double();
  if (!(d > 0) || !std::isfinite(d)) fail("must be positive, got " + describe_scalar(), "a number > 0");
  return d;
}

double YamlValue::as_non_negative() const {
  const double d = as_double();
  if (!(d >= 0) || !std::isfinite(d)) fail("must not be negative, got " + describe_scalar(), "a number >= 0");
  return d;
}

std::int64_t YamlValue::as_positive_int() const {
  const auto i = as_int();
  if (i <= 0) fail("must be a positive integer, got " + describe_scalar(), "an integer >= 1");
  return i;
}

std::int64_t YamlValue::as_non_negative_int() const {
  const auto i = as_int();
  if (i < 0) fail("must not be negative, got " + describe_scalar(), "an integer >= 0");
  return i;
}

std::string YamlValue::as_enum(const std::vector<std::string>& allowed) const {
  const auto s = as_string();
  if (std::find(allowed.begin(), allowed.end(), s) == allowed.end()) {
    fail("unknown value '" + s + "'" + did_you_mean(s, allowed), join_allowed(allowed));
  }
  return s;
}

std::string YamlValue::as_enum(std::initializer_list<std::string_view> allowed) const {
  return as_enum(std::vector<std::string>(allowed.begin(), allowed.end()));
}

std::string YamlValue::string_or(std::string_view key, std::string fallback) const {
  auto v = find(key);
  return v ? v->as_string() : std::move(fallback);
}
double YamlValue::double_or(std::string_view key, double fallback) const {
  auto v = find(key);
  return v ? v->as_double() : fallback;
}
std::int64_t YamlValue::int_or(std::string_view key, std::int64_t fallback) const {
  auto v = find(key);
  return v ? v->as_int() : fallback;
}
bool YamlValue::bool_or(std::string_view key, bool fallback) const {
  auto v = find(key);
  return v ? v->as_bool() : fallback;
}

}  // namespace k3::core
