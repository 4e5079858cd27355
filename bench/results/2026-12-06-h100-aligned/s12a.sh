#!/usr/bin/env bash
# Session 12, first call: the aligned backward pass against the default (one binary, both lines), alternating with JAX f64.
set -uo pipefail
O=$OUT; mkdir -p $O /tmp/ob /tmp/b
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; meson --version; } > $O/gpu.txt 2>&1
t0=$(date +%s); ts() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $O/times.txt; }
cccl=$(dirname "$(command -v nvcc)")/../include/cccl
nvcc -std=c++20 -O3 -gencode arch=compute_90,code=sm_90 -Iinclude -isystem "$cccl" -Xptxas -v bench/seir_log_density.cu -o /tmp/b/seir > $O/nvcc.log 2>&1 || { tail -30 $O/nvcc.log; exit 1; }
ts nvcc
export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1
L=$O/pairs.jsonl
echo "# $(date -u +%FT%TZ) $(cat $O/gpu.txt | head -1) $(git rev-parse --short HEAD 2>/dev/null) aligned vs default, alternating with JAX f64" > $L
for k in 1 2 3; do
  FLUXION_BENCH_ONLY=adjoint /tmp/b/seir /tmp/ob 100000 | grep '"full"' | sed "s/^{/{\"pair\": $k, /" >> $L
  timeout 60 python3 bench/peers/seir_log_density_jax.py jax f64 100000 /tmp/ob/seir_data.csv full | sed "s/^{/{\"pair\": $k, /" >> $L 2>>$O/peers.err
  ts "pair $k"
done
grep -oE '"pair": [0-9]|"impl": "[a-z]+"|"what": "[a-z_]+"|"dtype": "f[0-9]+"|"median_ms": [0-9.]+|"digest": "[0-9a-f]+"' $L | paste -d' ' - - - - - - | head -40
python3 bench/inference_ratios.py $L | tail -20
