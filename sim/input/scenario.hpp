#pragma once
// A scenario: everything one `k3sim run` needs, as read from a YAML file (documented key by key in
// scenarios/README.md). Loading checks syntax, types and ranges; the model preset and the topology are
// resolved once (scenario_inputs.hpp), and the step checks the layout against them (sim/train).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/yaml_input.hpp"
#include "sim/reliability/recovery_spec.hpp"
#include "sim/train/step_spec.hpp"

namespace k3::input {

// A step's settings plus where its inputs come from (model, topology, profile) and how it was written.
struct Scenario : train::StepSpec {
  std::string model;           // preset name, model YAML or config.json path (relative paths resolved)
  std::string topology;        // topology preset name or file
  std::optional<std::int64_t> nodes;  // override of the topology's node count
  std::optional<std::int64_t> radix;  // override of the topology's switch radix (fabric.radix)
  // Every topology key the `cluster:` block sets (nodes, gpus, fabric.radix, fabric.tiers, ...), as overrides of
  // the topology file, with the scenario key and line that set it (for errors found when the topology is loaded).
  struct ClusterSet {
    std::string topology_key;  // e.g. "fabric.radix"
    std::string value;         // YAML text
    std::string scenario_key;  // e.g. "cluster.fabric.radix"
    int line = 0;
  };
  std::vector<ClusterSet> cluster_sets;
  int optimizer_offload_line = 0;  // where optimizer.offload_fraction was given, for its refusal without a host
  int fsdp_offload_line = 0;       // where parallel.fsdp_offload was given, likewise
  int precision_gemm_line = 0;  // where precision.gemm was given, for its refusal on a GPU without the format
  std::string profile;         // calibration profile JSON; empty: the shipped default
  // `reliability:` (reliability_block.hpp): what interrupts a whole run, read by `run --goodput` and plan's goodput.
  std::optional<reliability::RecoverySpec> reliability;
};

// `key=value` from the command line, applied to the YAML before it is read (value parsed as YAML).
struct Override {
  std::string key;    // dotted path, e.g. parallel.ep
  std::string value;
  bool operator==(const Override&) const = default;
};
Override parse_override(const std::string& text);  // InputError naming --set when malformed

// Parts a serving scenario (serve_scenario.hpp) reads the same way.
void apply_override(YAML::Node root, const Override& o);
// Every override applied to the document, which then blames errors about their keys on --set.
void apply_overrides(core::YamlValue& doc, const std::vector<Override>& overrides);
// A path relative to the scenario file; bare names (presets) stay as they are.
std::string resolve_relative(const std::string& ref, const std::string& scenario_path);
// `cluster:`: the topology and the keys of it a scenario may change, into s.topology, s.nodes, s.radix and
// s.cluster_sets.
void read_cluster(const core::YamlValue& c, Scenario& s);

Scenario load_scenario(const std::string& path, const std::vector<Override>& overrides = {});
// `keep_text` false leaves Scenario::yaml_text empty: a search checking tens of thousands of candidates reports
// none of them (writing the text back out was a sixth of each parse).
Scenario parse_scenario(const std::string& yaml_text, const std::string& source_name,
                        const std::vector<Override>& overrides = {}, bool keep_text = true);


}  // namespace k3::input
