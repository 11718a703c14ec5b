#pragma once
// Named entries, each with a one-line description: network models, pipeline schedules, collective
// algorithms (SimGrid's model tables, ninja's tool table). A registry is a static array of entries, or of
// pointers to entries defined in their own files; these helpers are the one place that looks a name up,
// lists the allowed names for --help and errors, and refuses an unknown one. An entry has
// `std::string_view name` and `std::string_view description`.
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/error.hpp"

namespace k3::core {

template <typename E>
const auto& registry_entry(const E& e) {
  if constexpr (std::is_pointer_v<E>) {
    return *e;
  } else {
    return e;
  }
}

// nullptr when no entry is called `name`.
template <typename Registry>
auto find_entry(const Registry& entries, std::string_view name) -> decltype(&registry_entry(*std::begin(entries))) {
  for (const auto& e : entries) {
    if (registry_entry(e).name == name) return &registry_entry(e);
  }
  return nullptr;
}

// The names, in registry order: what a strict YAML enum read (core::YamlValue::as_enum) allows.
template <typename Registry>
std::vector<std::string> entry_name_list(const Registry& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.emplace_back(registry_entry(e).name);
  return out;
}

// "a, b, c": the allowed values, in registry order.
template <typename Registry>
std::string entry_names(const Registry& entries, std::string_view separator = ", ") {
  std::string out;
  for (const auto& e : entries) {
    if (!out.empty()) out += separator;
    out += registry_entry(e).name;
  }
  return out;
}

// The entry called `name`; InputError at `where` naming what was looked up and the allowed names.
template <typename Registry>
const auto& entry_named(const Registry& entries, std::string_view name, const InputLocation& where,
                        std::string_view what) {
  if (const auto* e = find_entry(entries, name)) return *e;
  throw InputError(where, "unknown " + std::string(what) + " '" + std::string(name) + "'", entry_names(entries));
}

}  // namespace k3::core
