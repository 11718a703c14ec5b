#include "cli/commands/planned_scenario.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "core/text_file.hpp"
#include "sim/input/scenario.hpp"

namespace k3::cli {

void write_planned_scenario(const std::string& path, YAML::Node root, const std::string& source, const std::string& what) {
  const auto relocate = [&](YAML::Node node) {
    if (!node || !node.IsScalar()) return;
    const auto resolved = input::resolve_relative(node.as<std::string>(), source);
    if (resolved == node.as<std::string>() && !std::filesystem::path(resolved).has_parent_path()) return;  // a preset
    const auto dir = std::filesystem::absolute(std::filesystem::path(path)).parent_path();
    node = std::filesystem::absolute(resolved).lexically_relative(dir).string();
  };
  relocate(root["model"]);
  if (root["cluster"]) relocate(root["cluster"]["topology"]);
  if (root["expert_load"]) relocate(root["expert_load"]["state"]);
  relocate(root["profile"]);
  if (root["name"]) root["name"] = root["name"].as<std::string>() + "-planned";
  YAML::Emitter out;
  out << root;
  core::write_text_file(path, fmt::format("# Written by `k3sim plan` from {}: {}.\n{}\n", source, what, out.c_str()),
                        "--write-best");
}

}  // namespace k3::cli
