#!/usr/bin/env bash
# Session 12, third call (warm): PyTorch f64/f32 beside the qualified build's bench, then three alternating adjoint / JAX f64 pairs.
set -uo pipefail
O=$OUT/c; mkdir -p $O /tmp/ob /tmp/fqinfer
t0=$(date +%s); ts() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $O/times.txt; }
export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1
L=$O/pairs.jsonl
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) ${1:-?}, three alternating pairs" > $L
for k in 1 2 3; do
  FLUXION_BENCH_ONLY=adjoint /tmp/fq/bench/fluxion-bench-seir-log-density /tmp/ob 100000 | grep '"full"' | sed "s/^{/{\"pair\": $k, /" >> $L
  timeout 60 python3 bench/peers/seir_log_density_jax.py jax f64 100000 /tmp/ob/seir_data.csv full | sed "s/^{/{\"pair\": $k, /" >> $L 2>>$O/peers.err
  ts "pair $k"
done
python3 bench/inference_ratios.py $L | grep pair
cp /tmp/ob/seir_data.csv /tmp/fqinfer/; rm -f /tmp/fqinfer/inference.jsonl
BUILD=/tmp/fq INFER_STAGES=peers PEER_TIMEOUT=200 PEER_RUNS="torch:f64:full torch:f32:full" bash bench/run_inference.sh /tmp/fqinfer 100000 > $O/torch.txt 2>&1 
ts torch

grep torch /tmp/fqinfer/inference.jsonl > $O/torch.jsonl; cat $O/torch.jsonl
