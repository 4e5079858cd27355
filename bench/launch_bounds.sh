#!/usr/bin/env bash
# On a GPU machine: the device benchmark built with several launch bounds
# (threads per block x minimum blocks per SM), with ptxas's register and
# spill counts, to choose FLUXION_CUDA_BLOCK_THREADS and
# FLUXION_CUDA_MIN_BLOCKS_PER_SM (exec/cuda/launch.hpp).
#   bash bench/launch_bounds.sh [OUTDIR]      VARIANTS="128 4;256 2" to choose
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-/tmp/fluxion-launch-bounds}")
mkdir -p "$out"
arch=${ARCH:-90}
flags=(-std=c++20 -O3 "-gencode=arch=compute_$arch,code=sm_$arch" -I"$here/include" -I"$here/tests"
       -I/usr/local/cuda/include/cccl --expt-relaxed-constexpr -Xptxas -v)
IFS=';' read -r -a variants <<<"${VARIANTS:-128 4;128 5;128 6;128 8;256 2;256 3}"
for v in "${variants[@]}"; do
  set -- $v
  nvcc "${flags[@]}" -DFLUXION_CUDA_BLOCK_THREADS="$1" -DFLUXION_CUDA_MIN_BLOCKS_PER_SM="$2" \
    "$here/bench/device_bench.cu" -o "$out/bench_$1_$2" >"$out/ptxas_$1_$2.log" 2>&1 &
done
wait
for v in "${variants[@]}"; do
  set -- $v
  echo "# threads $1, min blocks $2: $(grep -oE 'Used [0-9]+ registers|[0-9]+ bytes spill stores' "$out/ptxas_$1_$2.log" |
    paste -sd ' ' | cut -c1-300)"
  "$out/bench_$1_$2" | grep -E '"(rhs|jac_x_sparse_values)"' | sed "s/^{/{\"threads_per_block\": $1, \"min_blocks_per_sm\": $2, /"
done | tee "$out/launch-bounds.jsonl"
