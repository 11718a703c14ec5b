#!/usr/bin/env bash
# README command 1: install what is missing, build Release, run the main job on the bundled default.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release
mkdir -p out
./build/release/k3sim --version
# The main job: K3 (top-16-of-896 in a 3584 latent) against the iso-cost top-8-of-448 alternative on the
# default cluster (2,048 H200s), both variants of one scenario, with deltas and the HTML report.
./build/release/k3sim compare scenarios/k3-vs-448-h200-2048.yaml --report out/report.html
echo "report: out/report.html"
