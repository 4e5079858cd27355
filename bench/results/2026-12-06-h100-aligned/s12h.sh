#!/usr/bin/env bash
# Session 12, last: qualify commit $1 (comments that name docs/inference-gpu-history.md since b31641a), then JAX f64/f32 beside its bench.
set -uo pipefail
O=$OUT/h; C=${1:?commit}; M=$O/misc; mkdir -p $M
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; meson --version; } > $O/gpu.txt 2>&1
t0=$(date +%s); ts() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $M/times.txt; }
FLUXION_GIT_COMMIT=$C BUILD=/tmp/fq bash scripts/gpu-qualify.sh $O/q > $O/qualify-summary.txt 2>&1
ts qualify; cat $O/qualify-summary.txt
tar czf $OUT/evidence.tgz -C $OUT h
BUILD=/tmp/fq PEER_TIMEOUT=100 PEER_RUNS="jax:f64:full jax:f32:full" bash bench/run_inference.sh $O/infer 100000 > $M/infer.txt 2>&1
ts inference
grep -E "full .*adjoint|host" $O/infer/inference_ratios.txt
rm -rf $O/infer/bin
tar czf $OUT/evidence.tgz -C $OUT h
