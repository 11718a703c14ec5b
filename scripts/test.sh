#!/usr/bin/env bash
# README command 2: install what is missing, build Release and ASan+UBSan, and run every test in both.
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
for preset in release asan-ubsan; do
  echo "=== ${preset}: tests"
  ctest --preset "${preset}" -j "${jobs}" --timeout 900
done
# Fuzz the input loaders for a bounded time (60 s per target) in CI, or when K3SIM_FUZZ_SECONDS is set;
# set -e makes a finding fail this script.
if [[ -n "${CI:-}" || -n "${K3SIM_FUZZ_SECONDS:-}" ]]; then
  echo "=== fuzz: input loaders"
  bash scripts/fuzz.sh "${K3SIM_FUZZ_SECONDS:-60}"
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
