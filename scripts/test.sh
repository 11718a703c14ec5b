#!/usr/bin/env bash
# README command 2: install what is missing, build Release and ASan+UBSan, and run every test in both
# (after the fuzz run and the CUDA build, when those apply).
# .ci/run calls this script; keep the two in step.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=$(nproc)
for preset in release asan-ubsan; do
  echo "=== ${preset}: configure and build"
  cmake --preset "${preset}" >/dev/null
  cmake --build --preset "${preset}" -j "${jobs}"
done
# Fuzz the input loaders in CI: the reproducible --ci run (fixed seed and input count, see scripts/fuzz.sh),
# or a timed exploratory run when K3SIM_FUZZ_SECONDS is set; set -e makes a finding fail this script.
if [[ -n "${K3SIM_FUZZ_SECONDS:-}" ]]; then
  echo "=== fuzz: input loaders, ${K3SIM_FUZZ_SECONDS} s each"
  bash scripts/fuzz.sh "${K3SIM_FUZZ_SECONDS}"
elif [[ -n "${CI:-}" ]]; then
  echo "=== fuzz: input loaders (reproducible CI run)"
  bash scripts/fuzz.sh --ci
fi
# CUDA: compile the kernels, the cuda calibration backend and the GPU tests when nvcc exists, and run the
# GPU-labelled tests (they report skipped without a device). Only the kernel targets are built here.
if command -v nvcc >/dev/null || [[ -x /usr/local/cuda/bin/nvcc ]]; then
  echo "=== cuda: configure and build the kernels"
  cmake --preset cuda >/dev/null
  cuda_targets="k3sim_kernels_cuda k3sim_calibration test_kernels_gpu"
  if cmake --build build/cuda --target help | grep -q k3sim_nccl_sweep; then cuda_targets="${cuda_targets} k3sim_nccl_sweep"; fi
  # shellcheck disable=SC2086
  cmake --build build/cuda --target ${cuda_targets} -j "${jobs}"
  echo "=== cuda: GPU tests"
  ctest --test-dir build/cuda -L gpu --output-on-failure --timeout 900
fi
# The two full suites run last, so the script's closing lines are ctest's count of the tests that ran
# (the GPU-labelled suite above reports every test skipped on a machine without a device).
for preset in release asan-ubsan; do
  echo "=== ${preset}: tests"
  ctest --preset "${preset}" -j "${jobs}" --timeout 900
done
