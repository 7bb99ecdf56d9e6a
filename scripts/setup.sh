#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine needs, finds the CUDA toolkit and builds jitsparse into build/.
# Usage: scripts/setup.sh [build-dir]     (CUDA_HOME overrides /usr/local/cuda)
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}

# clang and its runtime libraries (libFuzzer, sanitizers): the fuzz_replay test builds the readers' fuzz targets
packages=(cmake g++ make nlohmann-json3-dev libboost-program-options-dev doctest-dev clang libclang-rt-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install ${missing[*]}" >&2; exit 1; }
    sudo_cmd=(sudo)
  fi
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

cuda=${CUDA_HOME:-/usr/local/cuda}
if [ ! -e "$cuda/include/nvrtc.h" ] || ! ls "$cuda"/lib64/libnvrtc.so* >/dev/null 2>&1 \
   || [ ! -e "$cuda/lib64/libcudart_static.a" ]; then
  cat >&2 <<MSG
setup: the CUDA toolkit was not found at '$cuda'.
jitsparse needs NVRTC and the static CUDA runtime (and cuSPARSE for the benchmark), from the CUDA toolkit
12.x or 13.x. Install it (https://developer.nvidia.com/cuda-downloads) or set CUDA_HOME to its root.
A GPU is not needed to build or to run the CPU tests.
MSG
  exit 1
fi

jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT="$cuda" >/dev/null
cmake --build "$build_dir" -j "$jobs"
echo "setup: built $build_dir/jitsparse"
