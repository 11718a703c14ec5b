#pragma once
// A scenario `k3sim plan` writes (--write-best): the base YAML with the plan's answer applied, read by `run`,
// `compare` and `serve` like any other. Paths it refers to are re-rooted at the file written.
#include <string>

#include <yaml-cpp/yaml.h>

namespace k3::cli {

// `root` is the base scenario (from `source`) with the answer applied; `what` says what the file holds.
void write_planned_scenario(const std::string& path, YAML::Node root, const std::string& source, const std::string& what);

}  // namespace k3::cli
