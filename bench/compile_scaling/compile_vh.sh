#!/usr/bin/env bash
# Compiles one translation unit of the vector-host fixture, as
# bench/compile_scaling.sh and bench/compile_ab.py both measure it (one
# command, so that their figures are of the same thing):
#   compile_vh.sh g++|nvcc ENTRY OBJECT [INCLUDE_DIR]
# g++ -O2 on vector_host_host.cpp, nvcc -O3 -arch=sm_90 on
# vector_host_device.cu; -DENTRY=ENTRY keeps one entry point (see
# vector_host.hpp). INCLUDE_DIR: fluxion's headers (default: this
# checkout's). libcu++ from the CUDA toolkit is on the include path where it
# is found. CXX and NVCC override the compilers.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
compiler=$1 entry=$2 obj=$3 inc=${4:-$here/../../include}
cccl=()
for d in /usr/local/cuda/include/cccl "${CUDA_HOME:-/nonexistent}/include/cccl"; do
  [ -d "$d" ] && { cccl=(-I "$d"); break; }
done
case $compiler in
  g++) exec "${CXX:-g++}" -std=c++20 -O2 -DENTRY="$entry" -I "$inc" "${cccl[@]}" -c "$here/vector_host_host.cpp" -o "$obj" ;;
  nvcc) exec "${NVCC:-nvcc}" -std=c++20 -O3 -arch=sm_90 -DENTRY="$entry" -I "$inc" "${cccl[@]}" -c \
          "$here/vector_host_device.cu" -o "$obj" ;;
  *) echo "compile_vh.sh: the compiler is g++ or nvcc, not '$compiler'" >&2; exit 2 ;;
esac
