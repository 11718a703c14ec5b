# Warning and sanitizer flags shared by every k3sim target through the k3sim_options interface target.
add_library(k3sim_options INTERFACE)
target_compile_options(k3sim_options INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
    -Wcast-align -Wunused -Woverloaded-virtual -Wdouble-promotion -Wformat=2
    -Wimplicit-fallthrough>)
# -Wnull-dereference is left out: GCC 12 flags std::vector internals at -O3.
# GCC 12 reports -Wrestrict / -Wstringop-overflow false positives inside libstdc++'s std::string at -O3
# (GCC bug 105329); they are not about k3sim code.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  target_compile_options(k3sim_options INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict -Wno-stringop-overflow>)
endif()
if(K3SIM_WERROR)
  target_compile_options(k3sim_options INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
endif()
if(K3SIM_SANITIZE)
  target_compile_options(k3sim_options INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer>)
  target_link_options(k3sim_options INTERFACE -fsanitize=address,undefined -fno-sanitize-recover=all)
  target_compile_definitions(k3sim_options INTERFACE K3SIM_CHECK_INVARIANTS=1)
endif()
# libFuzzer builds (scripts/fuzz.sh): every library gets coverage instrumentation and ASan+UBSan; the fuzz
# targets add -fsanitize=fuzzer for libFuzzer's main.
if(K3SIM_FUZZ)
  target_compile_options(k3sim_options INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer>)
  target_link_options(k3sim_options INTERFACE -fsanitize=address,undefined -fno-sanitize-recover=all)
  target_compile_definitions(k3sim_options INTERFACE K3SIM_CHECK_INVARIANTS=1)
endif()
if(CMAKE_BUILD_TYPE STREQUAL "Debug")
  target_compile_definitions(k3sim_options INTERFACE K3SIM_CHECK_INVARIANTS=1)
endif()

# Third-party headers are included as system headers so that -Werror judges only our code.
function(k3sim_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_link_libraries(${name} PUBLIC k3sim_options ${ARG_DEPS})
endfunction()
