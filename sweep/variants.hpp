#pragma once
// Named variants of a scenario for `k3sim compare`. A scenario may carry
//   variants:
//     - name: k3            # the base as it is (no `set`)
//     - name: k3-448
//       set: {model: k3-448, parallel: {ep: 32}}   # nested maps become dotted keys: parallel.ep=32
// Each variant is the base scenario with its `set` applied as --set overrides; without `variants` the
// file is one variant under the scenario's own name.
#include <string>
#include <vector>

#include "sim/input/scenario.hpp"

namespace k3::sweep {

struct Variant {
  std::string name;
  input::Scenario scenario;
};

// `sets` (from --set) apply to every variant before the variant's own keys.
std::vector<Variant> load_variants(const std::string& path, const std::vector<input::Override>& sets = {});
std::vector<Variant> parse_variants(const std::string& yaml_text, const std::string& source,
                                    const std::vector<input::Override>& sets = {});

}  // namespace k3::sweep
