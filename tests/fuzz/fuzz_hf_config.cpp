// libFuzzer target: every input must give a value or core::InputError; anything else aborts (a finding).
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "tests/fuzz/fuzz_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    k3::fuzz::load_hf_config_bytes(data, size);
  } catch (const k3::core::InputError&) {
    // the expected answer to bad input
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_hf_config: not an InputError: %s\n", e.what());
    std::abort();
  }
  return 0;
}
