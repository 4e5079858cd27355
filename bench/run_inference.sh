#!/usr/bin/env bash
# On a GPU machine: the SEIR example's log-density and gradient for N
# parameter sets (bench/seir_log_density.cu) beside the JAX and PyTorch
# peers (bench/peers/seir_log_density_jax.py) in one invocation, then the
# ratios (bench/inference_ratios.py). bench/run_device.sh calls it last
# (ONLY=infer runs it alone).
#   bash bench/run_inference.sh OUTDIR [N]
# Writes OUTDIR/inference.jsonl and OUTDIR/inference_ratios.txt.
# INFER_STAGES="fluxion peers" (default both) and PEER_RUNS (default every
# "impl:dtype:variant" of jax/torch x f64/f32 x full/exact) split the work
# over device calls; the peers need OUTDIR/seir_data.csv from the fluxion stage.
# NVCC_FLAGS adds flags to the benchmark's nvcc command (tuning knobs).
set -uo pipefail
out=$(realpath -m "${1:?usage: bench/run_inference.sh OUTDIR [N]}")
n=${2:-100000}
mkdir -p "$out"
here=$(cd "$(dirname "$0")/.." && pwd)
export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1
cccl=$(dirname "$(command -v nvcc)")/../include/cccl
bin=$out/bin
mkdir -p "$bin"
log=$out/inference.jsonl
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)" >>"$log"
stages=${INFER_STAGES:-fluxion peers}
if [[ " $stages " == *" fluxion "* ]]; then
if [ -n "${BUILD:-}" ] && [ -x "$BUILD/bench/fluxion-bench-seir-log-density" ]; then
  cp "$BUILD/bench/fluxion-bench-seir-log-density" "$bin/"
else
  # shellcheck disable=SC2086 # NVCC_FLAGS: extra flags, e.g. -DFLUXION_LOG_DENSITY_MIN_BLOCKS_PER_SM=3
  nvcc -std=c++20 -O3 -gencode arch=compute_90,code=sm_90 -I"$here/include" -isystem "$cccl" ${NVCC_FLAGS:-} -Xptxas -v \
    "$here/bench/seir_log_density.cu" -o "$bin/fluxion-bench-seir-log-density" 2>"$out/nvcc-seir.log" ||
    { tail -20 "$out/nvcc-seir.log"; exit 1; }
fi
"$bin/fluxion-bench-seir-log-density" "$out" "$n" | tee -a "$log"
fi
if [[ " $stages " == *" peers "* ]]; then
  runs=${PEER_RUNS:-jax:f64:full jax:f32:full jax:f64:exact jax:f32:exact torch:f64:full torch:f32:full torch:f64:exact torch:f32:exact}
  for run in $runs; do
    IFS=: read -r impl dt variant <<<"$run"
    timeout "${PEER_TIMEOUT:-400}" python3 "$here/bench/peers/seir_log_density_jax.py" "$impl" "$dt" "$n" \
      "$out/seir_data.csv" "$variant" 2>>"$out/peers-inference.err" | tee -a "$log"
    [ "${PIPESTATUS[0]}" = 0 ] ||
      echo "{\"impl\": \"$impl\", \"dtype\": \"$dt\", \"variant\": \"$variant\", \"N\": $n, \"error\": \"failed or timed out (see peers-inference.err)\"}" | tee -a "$log"
  done
fi
python3 "$here/bench/inference_ratios.py" "$log" | tee "$out/inference_ratios.txt"
