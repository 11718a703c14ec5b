#!/usr/bin/env bash
# One prepared run for a GPU session (device tool): run the GPU tests, then calibrate K3's kernels with the cuda
# backend op by op (an op that fails or runs long costs only itself), merge the parts into one profile and
# write it, a summary and every log to $OUT (at most 8 files come back: profile, summary, one archive).
#   OUT=/some/folder bash scripts/gpu-calibrate.sh [--quick] [--prebuilt DIR] [--budget SECONDS]
# --prebuilt DIR: k3sim and test_kernels_gpu built elsewhere (cuda preset), with DIR/lib holding the shared
#   libraries the device machine lacks; built here from source when absent or when a library is missing.
# --budget: ops not started within this many seconds of the start are skipped (default 420), so that the
#   merge and the archive always happen inside a 10-minute command.
# K3_CAL_BACKEND=cpu rehearses the whole script on a machine without a GPU (the cpu backend, no GPU tests).
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:?set OUT to the folder that receives the profile and logs}"
mode="" prebuilt="" budget=420
while (($#)); do
  case "$1" in
    --quick) mode="--quick" ;;
    --prebuilt) prebuilt="$2"; shift ;;
    --budget) budget="$2"; shift ;;
    *) echo "gpu-calibrate: unknown argument '$1' (allowed: --quick, --prebuilt DIR, --budget SECONDS)" >&2; exit 2 ;;
  esac
  shift
done
backend="${K3_CAL_BACKEND:-cuda}"
start=$(date +%s)
work=$(mktemp -d)
mkdir -p "${out}" "${work}/parts" "${work}/logs"
summary="${out}/summary.log"
log() { echo "=== [$(($(date +%s) - start)) s] $*" | tee -a "${summary}"; }
finish() {
  tar czf "${out}/logs.tar.gz" -C "${work}" . 2>/dev/null
  log "done (status ${status})"
  exit "${status}"
}
status=0

log "machine"
{ nvidia-smi || true; nvidia-smi -q -d CLOCK,MEMORY,POWER,TEMPERATURE 2>/dev/null | head -120 || true
  nvcc --version || true; uname -a; } >"${work}/logs/machine.log" 2>&1
grep -E "Driver Version|H200|H100|MiB" "${work}/logs/machine.log" | head -4 | tee -a "${summary}"

bin="" tests=""
if [[ -n "${prebuilt}" && -x "${prebuilt}/k3sim" ]]; then
  export LD_LIBRARY_PATH="${prebuilt}/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
  for lib in $(python3 -c "import nvidia, os; print(' '.join(os.path.join(p, d, 'lib') for p in nvidia.__path__ for d in os.listdir(p)))" 2>/dev/null); do
    [[ -d "${lib}" ]] && LD_LIBRARY_PATH="${LD_LIBRARY_PATH}:${lib}"
  done
  missing=$(ldd "${prebuilt}/k3sim" "${prebuilt}/test_kernels_gpu" 2>&1 | grep "not found" | sort -u)
  if [[ -z "${missing}" ]]; then
    bin="${prebuilt}/k3sim" tests="${prebuilt}/test_kernels_gpu"
    log "prebuilt binaries from ${prebuilt}"
  else
    log "prebuilt binaries lack: $(echo "${missing}" | tr '\n' ' ') - building here"
  fi
fi
if [[ -z "${bin}" ]]; then
  log "configure and build (cuda preset)"
  cmake --preset cuda -DCMAKE_CUDA_ARCHITECTURES=90 >"${work}/logs/configure.log" 2>&1 || { log "configure failed"; tail -20 "${work}/logs/configure.log"; status=1; finish; }
  cmake --build build/cuda --target k3sim test_kernels_gpu -j "$(nproc)" >"${work}/logs/build.log" 2>&1 \
    || { log "build failed"; tail -40 "${work}/logs/build.log"; status=1; finish; }
  bin=build/cuda/k3sim tests=build/cuda/tests/kernels/test_kernels_gpu
fi
"${bin}" --version | tee -a "${summary}"

if [[ "${backend}" == cuda ]]; then
  log "GPU tests"
  timeout 240 "${tests}" --gtest_output="json:${work}/logs/gpu_tests.json" >"${work}/logs/gpu_tests.log" 2>&1 || status=1
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|tests ran" "${work}/logs/gpu_tests.log" | tee -a "${summary}"
fi

# The ops that set K3's step first, the small memory-bound ones after.
ops="gemm grouped_gemm kda_forward mla_prefill mla_decode rmsnorm situ_glu router permute qb_histogram kda_decode"
for op in ${ops}; do
  elapsed=$(($(date +%s) - start))
  if ((elapsed > budget)); then log "skip ${op}: ${elapsed} s past the ${budget} s budget"; status=1; continue; fi
  t0=$(date +%s)
  # shellcheck disable=SC2086
  timeout 180 "${bin}" calibrate --backend "${backend}" ${mode} --ops "${op}" --out "${work}/parts/${op}.json" \
    >"${work}/logs/${op}.log" 2>&1
  rc=$?
  ((rc == 0)) || status=1
  log "${op}: exit ${rc} in $(($(date +%s) - t0)) s"
  grep -E "not timed|disagrees|differs|error" "${work}/logs/${op}.log" | head -5 | tee -a "${summary}"
done

parts=("${work}"/parts/*.json)
if [[ -e "${parts[0]}" ]]; then
  stamp=$(date -u +%Y-%m-%d)
  "${bin}" calibrate --merge "${parts[@]}" --out "${out}/profile-${stamp}.json" >"${work}/logs/merge.log" 2>&1 || status=1
  tee -a "${summary}" <"${work}/logs/merge.log"
else
  log "no op calibrated"; status=1
fi
finish
