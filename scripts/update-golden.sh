#!/usr/bin/env bash
# Rewrites tests/golden/*.json from the current Release build (after an intended change in what k3sim
# predicts); review `git diff tests/golden` before committing.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null
cmake --build --preset release --target k3sim test_golden -j "$(nproc)"
K3SIM_UPDATE_GOLDEN=1 build/release/tests/golden/test_golden
git --no-pager diff --stat -- tests/golden || true
