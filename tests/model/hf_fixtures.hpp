#pragma once
// Shared by the config.json import tests: the published fixtures' paths and the InputError check.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "core/error.hpp"

namespace k3::test {

inline std::string hf_fixture(const std::string& name) {
  return std::string(K3SIM_SOURCE_DIR) + "/tests/model/fixtures/" + name + "/config.json";
}

// Runs `f`, expecting an InputError whose message contains every fragment.
template <typename F>
void expect_input_error(F f, std::initializer_list<std::string> fragments) {
  try {
    f();
    ADD_FAILURE() << "no InputError";
  } catch (const core::InputError& e) {
    for (const auto& frag : fragments) EXPECT_NE(std::string(e.what()).find(frag), std::string::npos) << e.what();
  }
}

}  // namespace k3::test
