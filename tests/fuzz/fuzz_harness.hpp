#pragma once
// The three input loaders under fuzzing, each as one function from raw bytes to "a value or InputError".
// libFuzzer entry points (fuzz_*.cpp, built by the `fuzz` preset with clang) and the regression test
// (fuzz_regression_test.cpp, built by every preset) call the same functions, so an input the fuzzer found
// is replayed exactly as it was found.
#include <cstddef>
#include <cstdint>
#include <string>

#include "model/hf_config.hpp"
#include "core/error.hpp"
#include "core/yaml_input.hpp"
#include "sim/input/scenario.hpp"
#include "sim/input/serve_scenario.hpp"
#include "topologies/load.hpp"

namespace k3::fuzz {

// Topologies are built only up to this many GPUs: larger ones are valid input but take seconds each
// (their size limit is tested in tests/topologies), and the fuzzer is after parser bugs.
inline constexpr long long kMaxBuiltGpus = 4096;

inline std::string as_text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

inline void load_scenario_bytes(const std::uint8_t* data, std::size_t size) {
  (void)input::parse_scenario(as_text(data, size), "fuzz.yaml");
}

inline void load_serve_scenario_bytes(const std::uint8_t* data, std::size_t size) {
  (void)input::parse_serve_scenario(as_text(data, size), "fuzz.yaml");
}

inline void load_topology_bytes(const std::uint8_t* data, std::size_t size) {
  const auto root = core::YamlValue::parse_string(as_text(data, size), "fuzz.yaml");
  if (!root.is_map()) root.fail("expected a mapping of topology keys", "name, nodes, node, fabric, gpu_types");
  const auto spec = topo::parse_cluster_spec(root);
  if (static_cast<long long>(spec.nodes) * spec.node.gpus <= kMaxBuiltGpus) (void)topo::build_cluster(spec);
}

inline void load_hf_config_bytes(const std::uint8_t* data, std::size_t size) {
  (void)model::load_hf_config_string(as_text(data, size), "config.json");
}

}  // namespace k3::fuzz
