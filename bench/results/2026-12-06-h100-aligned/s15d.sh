#!/usr/bin/env bash
# Session 15: qualify commit $1 (case i checks the return codes of its scratch check), without a benchmark.
set -uo pipefail
O=$OUT/h; C=${1:?commit}; M=$O/misc; mkdir -p $M $OUT/ct
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; meson --version; nvcc --version | tail -2; g++ --version | head -1; } > $O/gpu.txt 2>&1
t0=$(date +%s); ts() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $M/times.txt; }
FLUXION_GIT_COMMIT=$C BUILD=/tmp/fq bash scripts/gpu-qualify.sh $O/q > $O/qualify-summary.txt 2>&1
ts qualify; tail -30 $O/qualify-summary.txt
tar czf $OUT/evidence.tgz -C $OUT h
