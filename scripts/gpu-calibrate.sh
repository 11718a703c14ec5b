#!/usr/bin/env bash
# One prepared run for a GPU session (device tool): build with CUDA, run the GPU tests, calibrate with the
# cuda backend, run the NCCL sweep with one rank, and copy the profile and every log to $OUT.
#   OUT=/some/folder bash scripts/gpu-calibrate.sh [--quick]
# Budget: build ~4 min on 16 cores, tests ~1 min, calibrate --quick ~2 min (full: ~5 min).
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:?set OUT to the folder that receives the profile and logs}"
mode="${1:-}"
mkdir -p "${out}"
jobs=$(nproc)
status=0
log() { echo "=== $*" | tee -a "${out}/summary.log"; }

log "machine"
{ nvidia-smi || true; nvidia-smi -q -d CLOCK,MEMORY 2>/dev/null | head -60 || true; nvcc --version || true; } >"${out}/machine.log" 2>&1

log "configure and build (cuda preset)"
cmake --preset cuda >"${out}/configure.log" 2>&1 || { log "configure failed"; exit 1; }
targets="k3sim test_kernels_gpu test_kernel_refs test_calibration"
cmake --build build/cuda --target help | grep -q k3sim_nccl_sweep && targets="${targets} k3sim_nccl_sweep"
# shellcheck disable=SC2086
cmake --build build/cuda --target ${targets} -j "${jobs}" >"${out}/build.log" 2>&1 || { log "build failed"; tail -40 "${out}/build.log"; exit 1; }

log "GPU tests"
build/cuda/tests/kernels/test_kernels_gpu --gtest_output="json:${out}/gpu_tests.json" >"${out}/gpu_tests.log" 2>&1 || status=1
tail -30 "${out}/gpu_tests.log" | tee -a "${out}/summary.log"

log "calibrate --backend cuda ${mode}"
stamp=$(date -u +%Y%m%d)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | tr ' ' '-' | tr -cd 'A-Za-z0-9-')
profile="${out}/profile-${stamp}-${gpu:-gpu}.json"
# shellcheck disable=SC2086
build/cuda/k3sim calibrate --backend cuda ${mode} --out "${profile}" >"${out}/calibrate.log" 2>&1 || status=1
tee -a "${out}/summary.log" <"${out}/calibrate.log"

if [[ -x build/cuda/k3sim_nccl_sweep ]] && command -v mpirun >/dev/null; then
  log "NCCL sweep (one rank per GPU)"
  ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
  mpirun --allow-run-as-root --oversubscribe -np "${ngpu:-1}" build/cuda/k3sim_nccl_sweep --max-bytes $((1 << 28)) \
    >"${out}/nccl_sweep.jsonl" 2>"${out}/nccl_sweep.log" || status=1
  wc -l "${out}/nccl_sweep.jsonl" | tee -a "${out}/summary.log"
fi
log "done (status ${status})"
exit "${status}"
