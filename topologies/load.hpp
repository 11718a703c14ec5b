#pragma once
// Topologies from YAML: a preset name (topologies/presets/<name>.yaml, compiled into the binary) or a
// path to a file, with optional "key=value" overrides such as "nodes=512" or "fabric.radix=128".
// Bad input throws core::InputError naming the file, key, line and what is allowed.
#include <map>
#include <string>
#include <vector>

#include "core/yaml_input.hpp"
#include "topologies/cluster_spec.hpp"
#include "topologies/topology.hpp"

namespace k3::topo {

std::vector<std::string> preset_names();
// Built-in GPU types (topologies/gpu_types.yaml: figures from shared/validation/hardware.csv).
std::map<std::string, GpuType> builtin_gpu_types();
// The built-in GPU type whose name starts with `name`, case-insensitively ("h200" -> H200-SXM): the one GPU
// catalogue that topologies, `k3sim kv --gpu` and `k3sim list gpus` share. InputError at `flag` listing the names.
GpuType find_gpu_type(const std::string& name, const std::string& flag);

ClusterSpec parse_cluster_spec(const core::YamlValue& root);
ClusterSpec load_cluster_spec(const std::string& preset_or_path, const std::vector<std::string>& overrides = {});

}  // namespace k3::topo
