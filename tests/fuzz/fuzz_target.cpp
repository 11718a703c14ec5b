// libFuzzer target: every input must give a value or k3::core::InputError; anything else aborts (a finding).
// Built once per loader (tests/fuzz/CMakeLists.txt): K3SIM_FUZZ_LOADER names the fuzz_harness.hpp function,
// K3SIM_FUZZ_NAME the program.
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "tests/fuzz/fuzz_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    k3::fuzz::K3SIM_FUZZ_LOADER(data, size);
  } catch (const k3::core::InputError&) {
    // the expected answer to bad input
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: not an InputError: %s\n", K3SIM_FUZZ_NAME, e.what());
    std::abort();
  }
  return 0;
}
