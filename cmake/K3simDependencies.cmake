# All dependencies are Debian packages (scripts/install-deps.sh installs them); nothing is downloaded here.
find_package(Threads REQUIRED)
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(Boost 1.74 REQUIRED COMPONENTS graph)
find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)  # XXH3-128 fingerprints of replayed passes

if(K3SIM_BUILD_TESTS)
  find_package(GTest REQUIRED)
  pkg_check_modules(SIMGRID IMPORTED_TARGET simgrid)
endif()
if(K3SIM_BUILD_BENCH)
  find_package(benchmark REQUIRED)
  if(NOT SIMGRID_FOUND)
    pkg_check_modules(SIMGRID IMPORTED_TARGET simgrid)
  endif()
endif()

find_package(MPI COMPONENTS CXX)
