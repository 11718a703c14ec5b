#pragma once
// YAML files compiled into the binary by topologies/CMakeLists.txt, so presets work from any folder.
#include <string_view>
#include <vector>

namespace k3::topo {

struct EmbeddedFile {
  std::string_view name;  // preset name (file stem)
  std::string_view text;
};
const std::vector<EmbeddedFile>& embedded_presets();
std::string_view embedded_gpu_types();

}  // namespace k3::topo
