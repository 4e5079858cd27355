#!/usr/bin/env bash
# Session 13: qualify commit $1 (b70972c's overlap checks; first run over 69a9b16, then f6d4e17).
set -uo pipefail
O=$OUT/h; C=${1:?commit}; M=$O/misc; mkdir -p $M
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; meson --version; nvcc --version | tail -2; g++ --version | head -1; } > $O/gpu.txt 2>&1
t0=$(date +%s); ts() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $M/times.txt; }
FLUXION_GIT_COMMIT=$C BUILD=/tmp/fq bash scripts/gpu-qualify.sh $O/q > $O/qualify-summary.txt 2>&1
ts qualify; cat $O/qualify-summary.txt
tar czf $OUT/evidence.tgz -C $OUT h
