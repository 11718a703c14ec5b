#!/usr/bin/env bash
# Installs the Debian packages k3sim needs, only those missing (idempotent). Needs root on Debian 12.
set -euo pipefail
packages=(
  cmake ninja-build g++ pkg-config git
  libeigen3-dev libboost-graph-dev libfmt-dev libcli11-dev libyaml-cpp-dev nlohmann-json3-dev libxxhash-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  openmpi-bin libopenmpi-dev libsimgrid-dev
  chromium chromium-driver python3-selenium tidy
  clang libclang-rt-14-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
