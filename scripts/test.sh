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
