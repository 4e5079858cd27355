#!/usr/bin/env bash
# Session 14: qualify commit $1 (slots in the Jacobian walk, bind keyed by the expression, host-only nnz count), then compile cost of the vector-host fixture: HEAD~1 (14a9473) headers against $1's.
set -uo pipefail
O=$OUT/h; C=${1:?commit}; M=$O/misc; mkdir -p $M $OUT/ct
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; meson --version; nvcc --version | tail -2; g++ --version | head -1; } > $O/gpu.txt 2>&1
t0=$(date +%s); ts() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $M/times.txt; }
FLUXION_GIT_COMMIT=$C BUILD=/tmp/fq bash scripts/gpu-qualify.sh $O/q > $O/qualify-summary.txt 2>&1
ts qualify; tail -30 $O/qualify-summary.txt
tar czf $OUT/evidence.tgz -C $OUT h
{ lscpu | head -20; nproc; } > $OUT/ct/machine.txt 2>&1
ENTRIES="${ENTRIES:-rhs jac_x_values jac_p_values obs_jac_x_values}" timeout $(( 560 - ($(date +%s) - t0) )) python3 bench/compile_ab.py $OUT/ct/ab.json ${REP:-3} ${W:-8} base=.devrun/base13/include work=include 2>&1 | tee $OUT/ct/ab.txt
ts ab
