#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/setup.sh - install what building and testing prstm needs, if missing:
# CMake, Ninja, a C++17 compiler, GoogleTest and CLI11 from the system package
# manager (Debian/Ubuntu names below), and libcu++ when no CUDA toolkit is
# present. The CUDA toolkit itself (nvcc) is optional: without it only the CPU
# backend builds.
#   --plot   also matplotlib (python3-matplotlib), which tools/plot_results.py needs
#            to draw the report's figures; nothing else of the project uses it
#   --multi-gpu  also NVSHMEM (the Python wheel nvidia-nvshmem-cu13: headers, host
#            and device libraries), which the multi-GPU build (PRSTM_WITH_NVSHMEM,
#            docs/multi-gpu.md) needs; nothing else of the project uses it
set -euo pipefail

plot=0
multi_gpu=0
for a in "$@"; do
  case "$a" in
    --plot) plot=1 ;;
    --multi-gpu) multi_gpu=1 ;;
    *) echo "setup: unknown option '$a' (known: --plot, --multi-gpu)" >&2; exit 2 ;;
  esac
done

if [ "$multi_gpu" = 1 ]; then
  if python3 -c 'import nvidia.nvshmem' >/dev/null 2>&1; then
    echo "setup: NVSHMEM present ($(python3 -c 'import nvidia.nvshmem as m; print(list(m.__path__)[0])'))"
  else
    echo "setup: installing nvidia-nvshmem-cu13 (pip)"
    python3 -m pip install --quiet nvidia-nvshmem-cu13
  fi
fi

need=()
have_header() { echo "#include <$1>" | ${CXX:-c++} -x c++ -std=c++17 -fsyntax-only $2 - >/dev/null 2>&1; }

command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v ninja >/dev/null 2>&1 || need+=(ninja-build)
command -v c++ >/dev/null 2>&1 || need+=(g++)
if command -v c++ >/dev/null 2>&1; then
  have_header gtest/gtest.h "" || need+=(libgtest-dev)
  have_header CLI/CLI.hpp "" || need+=(libcli11-dev)
  cuda_inc=""
  for d in /usr/local/cuda/include/cccl /usr/local/cuda/include; do [ -e "$d/cuda/atomic" ] && cuda_inc="-I$d" && break; done
  have_header cuda/atomic "$cuda_inc" || need+=(libcu++-dev)
else
  need+=(libgtest-dev libcli11-dev)
fi

if [ "$plot" = 1 ] && ! python3 -c 'import matplotlib' >/dev/null 2>&1; then
  need+=(python3-matplotlib)
fi

if [ ${#need[@]} -eq 0 ]; then
  echo "setup: all build dependencies present"
  exit 0
fi

echo "setup: installing ${need[*]}"
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO=sudo; else
    echo "setup: missing packages: ${need[*]}; run as root or install them with: apt-get install ${need[*]}" >&2
    exit 1
  fi
else
  SUDO=""
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: no apt-get on this machine; install these packages with your package manager: ${need[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
