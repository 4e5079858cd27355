#!/usr/bin/env bash
# On a GPU machine: build fluxion's benchmarks and run them beside the peer
# scripts of shared/peers (hand-written CUDA, JAX, PyTorch) in one invocation.
# All JSON lines go to the folder named by the first argument.
#   bash bench/run_device.sh OUTDIR [PEERS_DIR]
# PEERS_DIR defaults to ../shared/peers, then ./.peers (a copy carried to the
# device machine).
set -uo pipefail
out=$(realpath -m "${1:?usage: bench/run_device.sh OUTDIR [PEERS_DIR]}")
mkdir -p "$out"
here=$(cd "$(dirname "$0")/.." && pwd)
peers=${2:-}
[ -n "$peers" ] || { [ -d "$here/../shared/peers" ] && peers="$here/../shared/peers"; }
[ -n "$peers" ] || peers="$here/.peers"
# ONLY=infer: just the log-density benchmark (bench/run_inference.sh); ONLY=solvers:
# just the ensemble solvers beside their peers (bench/run_solvers.sh, into
# OUTDIR/solvers). Both otherwise run last, in that order. The whole script takes
# longer than a 10-minute device call: split it with ONLY there.
if [ "${ONLY:-}" = infer ]; then exec bash "$here/bench/run_inference.sh" "$out"; fi
# SOLVER_STAGES passes run_solvers.sh its own ONLY (its stages: lorenz stiff grid wp host).
if [ "${ONLY:-}" = solvers ]; then ONLY="${SOLVER_STAGES:-}" exec bash "$here/bench/run_solvers.sh" "$out/solvers" "$peers"; fi
build=${BUILD:-/tmp/fluxion-bench-build}
export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" "$here" --buildtype=release -Dtests=false >"$out/bench-setup.log" 2>&1 || { tail -20 "$out/bench-setup.log"; exit 1; }
fi
meson compile -C "$build" bench/fluxion-bench-device bench/fluxion-bench-derivatives >"$out/bench-compile.log" 2>&1 || { tail -30 "$out/bench-compile.log"; exit 1; }
{
  echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
  "$build/bench/fluxion-bench-device" --sweep
} | tee "$out/fluxion-device.jsonl"
"$build/bench/fluxion-bench-derivatives" | tee "$out/fluxion-host-derivatives.jsonl"
# Peers in the same invocation: right-hand side at B = 2^20, then the dense
# state Jacobian by JAX forward mode at B = 16384, then the batch-size sweep
# of the hand-written kernel and JAX for the throughput plot (SWEEP=0 skips it).
python3 - <<'PY' 2>/dev/null | tee "$out/versions.txt"
import importlib
for m in ("jax", "cupy", "torch", "numpy"):
    try:
        print(m, importlib.import_module(m).__version__)
    except Exception as e:
        print(m, "unavailable:", type(e).__name__)
PY
nvcc --version 2>/dev/null | tail -1 | tee -a "$out/versions.txt"
OUT="$out" bash "$peers/run_rhs.sh"
for dt in f64 f32; do
  timeout 300 python3 "$peers/rhs_peers.py" jax-jac "$dt" 16384 2>>"$out/rhs.err" | tee -a "$out/peers-jac.jsonl"
done
if [ "${SWEEP:-1}" != 0 ]; then
  for e in 10 12 14 16 18 20 22; do
    for dt in f64 f32; do
      for impl in cupy jax; do
        timeout 120 python3 "$peers/rhs_peers.py" "$impl" "$dt" $((1 << e)) 2>>"$out/sweep.err" | tee -a "$out/peers-sweep.jsonl"
      done
    done
  done
fi
python3 "$here/bench/plot_throughput.py" "$out" 2>>"$out/plot.err" || echo "plot_throughput: skipped (see plot.err)"
# The ensemble solvers beside the hand-written kernels and diffrax, then the
# SEIR log-density and its gradient beside JAX and PyTorch.
ONLY="${SOLVER_STAGES:-}" bash "$here/bench/run_solvers.sh" "$out/solvers" "$peers"
bash "$here/bench/run_inference.sh" "$out"
