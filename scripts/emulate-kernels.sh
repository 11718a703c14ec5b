#!/usr/bin/env bash
# Runs the tensor-core kernels' device code (kernels/kda/kda_chunk.cu, kernels/mla/mla_prefill.cu,
# kernels/mla/mla_decode.cu) on the CPU under an emulation of the CUDA subset they use
# (tests/kernels/emulation/), against the CPU references and with the GPU tests' tolerances. For sessions
# without a GPU: it checks indexing, synchronisation and the algorithm, not the hardware's rounding or speed;
# the GPU tests (label gpu) remain the check on a device. Not part of CI.
#   bash scripts/emulate-kernels.sh [prefill|decode|kda|all]     (about 2 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -d build/release ]] || cmake --preset release >/dev/null
cmake --build build/release --target k3sim_kernel_refs >/dev/null
work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT
# The kernels are the .cu file's first anonymous namespace (the launchers after it use <<< >>>).
for f in kda/kda_chunk mla/mla_prefill mla/mla_decode; do
  awk '/^namespace \{$/ && !done { on = 1 } on { print } on && /^\}  \/\/ namespace$/ { on = 0; done = 1 }' \
    "kernels/${f}.cu" | sed 's/extern __shared__ __align__(256) unsigned char smem\[\];/unsigned char* smem = emu::smem();/' \
    >"${work}/$(basename "${f}").inc"
done
g++ -std=c++20 -O2 -pthread -I. -DKDA_CHUNK_INC="\"${work}/kda_chunk.inc\"" \
  -DMLA_PREFILL_INC="\"${work}/mla_prefill.inc\"" -DMLA_DECODE_INC="\"${work}/mla_decode.inc\"" \
  tests/kernels/emulation/emulate_kernels.cpp build/release/kernels/libk3sim_kernel_refs.a \
  build/release/core/libk3sim_core.a -lfmt -o "${work}/emulate_kernels"
"${work}/emulate_kernels" "${1:-all}"
