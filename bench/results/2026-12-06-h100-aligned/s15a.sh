#!/usr/bin/env bash
# Session 15: qualify commit $1 (HEAD: 52fcccf's device check, 8fee4d7's index_in_range), then nvcc --time phases of the vector-host Jacobian units.
set -uo pipefail
O=$OUT/h; C=${1:?commit}; M=$O/misc; mkdir -p $M $OUT/ct
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; meson --version; nvcc --version | tail -2; g++ --version | head -1; } > $O/gpu.txt 2>&1
t0=$(date +%s); ts() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $M/times.txt; }
FLUXION_GIT_COMMIT=$C BUILD=/tmp/fq bash scripts/gpu-qualify.sh $O/q > $O/qualify-summary.txt 2>&1
ts qualify; tail -30 $O/qualify-summary.txt
tar czf $OUT/evidence.tgz -C $OUT h
{ lscpu | head -20; nproc; } > $OUT/ct/machine.txt 2>&1
for e in rhs jac_x_values jac_p_values; do
  ( cd /tmp && /usr/bin/time -f "$e total %U+%S s %M KB" nvcc -std=c++20 -O3 -arch=sm_90 -DENTRY=$e -I $OLDPWD/include -I /usr/local/cuda/include/cccl --time $OUT/ct/time-$e.csv -c $OLDPWD/bench/compile_scaling/vector_host_device.cu -o /tmp/vh-$e.o ) 2>&1 | tail -2 &
done; wait
ts phases
