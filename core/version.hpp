#pragma once
#include <string_view>

namespace k3::core {
// "k3sim 0.1.0" from the CMake project version.
std::string_view version_string();
// The git commit the binary was configured from ("3f2a9c1"), "unknown" outside a git checkout. CMake
// re-configures when the checkout's HEAD moves, so a build after a commit names that commit.
std::string_view source_commit();
}  // namespace k3::core
