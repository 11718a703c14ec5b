#pragma once
#include <string_view>

namespace k3::core {
// "k3sim 0.1.0" from the CMake project version.
std::string_view version_string();
}  // namespace k3::core
