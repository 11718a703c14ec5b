#!/usr/bin/env bash
# README command 1: install what is missing, build Release, run the main job on the bundled default.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release
mkdir -p out
./build/release/k3sim --version
