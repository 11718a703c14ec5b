#include "sweep/variants.hpp"

#include <yaml-cpp/yaml.h>

#include <set>

#include "core/error.hpp"
#include "core/text_file.hpp"
#include "core/yaml_input.hpp"

namespace k3::sweep {

namespace {

// Flattens {parallel: {ep: 32}} into parallel.ep=32; leaves (scalars and lists) are written back as YAML.
void flatten(const core::YamlValue& v, const std::string& prefix, std::vector<input::Override>& out) {
  if (v.is_map()) {
    for (const auto& [k, child] : v.entries()) flatten(child, prefix.empty() ? k : prefix + "." + k, out);
    return;
  }
  YAML::Emitter e;
  e << YAML::Flow << v.node();
  out.push_back({prefix, e.c_str()});
}

}  // namespace

std::vector<Variant> parse_variants(const std::string& yaml_text, const std::string& source,
                                    const std::vector<input::Override>& sets) {
  const auto doc = core::YamlValue::parse_string(yaml_text, source);
  const auto list = doc.is_map() ? doc.find("variants") : std::nullopt;
  if (!list) {
    auto s = input::parse_scenario(yaml_text, source, sets);
    return {Variant{s.name, std::move(s)}};
  }
  if (!list->is_sequence() || list->items().empty()) {
    list->fail("must be a non-empty list of {name, set}", "variants: [{name: a}, {name: b, set: {model: k3-448}}]");
  }
  std::vector<Variant> out;
  std::set<std::string> names;
  for (const auto& item : list->items()) {
    if (!item.is_map()) item.fail("a variant must be a mapping", "{name: NAME, set: {key: value}}");
    item.allow_only({"name", "set"});
    const auto name = item.at("name").as_string();
    if (!names.insert(name).second) item.at("name").fail("two variants share this name", "unique names");
    auto overrides = sets;
    if (auto set = item.find("set")) {
      if (!set->is_map()) set->fail("must be a mapping of scenario keys", "set: {model: k3-448}");
      flatten(*set, "", overrides);
    }
    for (const auto& o : overrides) {
      if (o.key == "variants" || o.key.starts_with("variants.")) {
        item.fail("a variant cannot set variants", "scenario keys other than variants");
      }
    }
    auto s = input::parse_scenario(yaml_text, source, overrides);
    s.name = name;
    out.push_back({name, std::move(s)});
  }
  return out;
}

std::vector<Variant> load_variants(const std::string& path, const std::vector<input::Override>& sets) {
  return parse_variants(core::read_text_file(path, "a scenario YAML file (see scenarios/README.md)"), path, sets);
}

}  // namespace k3::sweep
