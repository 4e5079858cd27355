#!/usr/bin/env bash
# On a GPU machine: fluxion's ensemble solvers beside the peers of
# BENCHMARKS.md (Model B: Lorenz, Model C: Robertson) in one invocation.
#   bash bench/run_solvers.sh OUTDIR [PEERS_DIR]
# Builds the two benchmarks with nvcc (or takes them from $BUILD/bench when
# BUILD is set and holds them), writes the peers' Robertson rate constants
# for the largest ensemble (numpy, seed 7, as stiff_peers.py draws them) so
# both sides integrate the same trajectories, and appends every JSON line to
# OUTDIR/solvers.jsonl. PEERS_DIR defaults to ../shared/peers, then ./.peers.
# Robertson's Rodas5P also runs at a ladder of tighter tolerances, for the
# comparison with the peer's Rodas5 at matched error (solver_ratios.py).
# Also Model A over a parameter grid beside bench/peers/model_a_grid_diffrax.py,
# the work-precision diagram (bench/work_precision.py: OUTDIR/
# work_precision.{jsonl,png}), and on the host CPU (stage host, no GPU
# needed) Lorenz and Robertson on one core and all cores beside Boost.Odeint
# (bench/solvers_host.cpp, built with g++ -O3 -march=native) and the peers'
# one-core C++ Rodas5 (stiff_peers.py host-rodas5, same rate constants).
# ONLY picks stages: ONLY="lorenz stiff grid wp host" (the default: all; a
# device call is limited to 10 minutes, the GPU stages take about 12, host
# about one more); only the benchmarks of the stages picked are built.
# HOST_N_LORENZ and HOST_N_ROBERTSON size the host stage (1e5 and 1e4).
set -uo pipefail
out=$(realpath -m "${1:?usage: bench/run_solvers.sh OUTDIR [PEERS_DIR]}")
mkdir -p "$out"
here=$(cd "$(dirname "$0")/.." && pwd)
peers=${2:-}
[ -n "$peers" ] || { [ -d "$here/../shared/peers" ] && peers="$here/../shared/peers"; }
[ -n "$peers" ] || peers="$here/.peers"
export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1
log=$out/solvers.jsonl
bin=$out/bin
mkdir -p "$bin"
cccl=$(dirname "$(command -v nvcc)")/../include/cccl
want() { [[ " ${ONLY:-lorenz stiff grid wp host} " == *" $1 "* ]]; }
build_one() {
  local b=$1 src
  if [ -n "${BUILD:-}" ] && [ -x "$BUILD/bench/fluxion-bench-$b" ]; then
    cp "$BUILD/bench/fluxion-bench-$b" "$bin/"
    return
  fi
  if [ "$b" = solvers-host ]; then
    # Odeint's side is C++17 (Boost.uBLAS before 1.75 does not build as C++20; see bench/meson.build).
    local cxx=${CXX:-g++}
    "$cxx" -O3 -march=native -std=c++17 -c "$here/bench/solvers_host_odeint.cpp" -o "$bin/solvers_host_odeint.o" \
      2>"$out/cxx-$b.log" &&
      "$cxx" -O3 -march=native -std=c++20 -I"$here/include" -DFLUXION_SOLVE_DATA="\"$here/tests/solve/data\"" \
        "$here/bench/solvers_host.cpp" "$bin/solvers_host_odeint.o" -pthread -o "$bin/fluxion-bench-$b" \
        2>>"$out/cxx-$b.log" || { tail -20 "$out/cxx-$b.log"; return 1; }
    return
  fi
  case $b in
    ensemble) src=ensemble_device.cu ;; stiff) src=stiff_device.cu ;;
    model-a-grid) src=model_a_grid.cu ;; work-precision) src=work_precision.cu ;;
  esac
  nvcc -std=c++20 -O3 -gencode arch=compute_90,code=sm_90 -I"$here/include" -isystem "$cccl" \
    -DFLUXION_HAVE_LIBCUDACXX=1 "$here/bench/$src" -o "$bin/fluxion-bench-$b" 2>"$out/nvcc-$b.log" ||
    { tail -20 "$out/nvcc-$b.log"; return 1; }
}
# The peers' Robertson rate constants (numpy, seed 7, a row-major (N, 3) draw,
# as stiff_peers.py draws them), so both sides integrate the same trajectories.
write_k() {
  python3 - "$1" "$2" <<'PY'
import sys, numpy as np
K = np.array([0.04, 3e7, 1e4]) * np.random.default_rng(7).uniform(0.5, 1.5, (int(sys.argv[2]), 3))
K.astype("<f8").tofile(sys.argv[1])
PY
}
pids=()
for stage_bench in lorenz:ensemble stiff:stiff grid:model-a-grid wp:work-precision host:solvers-host; do
  want "${stage_bench%%:*}" || continue
  build_one "${stage_bench#*:}" & pids+=($!)  # in parallel
done
for pid in "${pids[@]}"; do wait "$pid" || exit 1; done
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)" >>"$log"
if want lorenz; then
  "$bin/fluxion-bench-ensemble" 100000 1000000 | tee -a "$log"
  for n in 100000 1000000; do
    for dt in f32 f64; do
      (cd "$peers" && timeout 120 python3 ode_peers.py cuda-tsit5-adaptive $dt $n adaptive 2>>"$out/peers.err") | tee -a "$log"
    done
  done
  for dt in f32 f64; do
    (cd "$peers" && timeout 200 python3 ode_peers.py diffrax $dt 1000000 adaptive 2>>"$out/peers.err") | tee -a "$log"
  done
fi
if want stiff; then
  write_k "$out/robertson_k.bin" 1000000
  "$bin/fluxion-bench-stiff" "$out/robertson_k.bin" "$peers/robertson_ref_seed7_n256_radau1e-10.npy" --ladder \
    10000 100000 1000000 |
    tee -a "$log"
  (
    cd "$peers" || exit 1
    timeout 300 python3 stiff_peers.py ref f64 256 final 2>>"$out/peers.err" >/dev/null
    for n in 10000 100000 1000000; do
      for impl in cuda-rodas5 cuda-rosenbrock23; do
        for m in final saveat; do timeout 150 python3 stiff_peers.py $impl f64 $n $m 2>>"$out/peers.err"; done
      done
    done
    for impl in cuda-rodas5 cuda-rosenbrock23; do
      timeout 150 python3 stiff_peers.py $impl f32 1000000 final 2>>"$out/peers.err"
    done
    timeout 200 python3 stiff_peers.py diffrax f64 1000000 final 2>>"$out/peers.err"
  ) | tee -a "$log"
fi
if want grid; then
  # Model A over a 256 x 256 parameter grid, beside our diffrax vmap peer (f64 first: it keeps the reference).
  "$bin/fluxion-bench-model-a-grid" 256 "$out" | tee -a "$log"
  for dt in f64 f32; do
    timeout 300 python3 "$here/bench/peers/model_a_grid_diffrax.py" $dt 256 "$out" 2>>"$out/peers.err" | tee -a "$log"
  done
fi
if want wp; then
  # The work-precision diagram (Lorenz, float64): its own jsonl and PNG.
  timeout 400 python3 "$here/bench/work_precision.py" "$out" --bin "$bin/fluxion-bench-work-precision" \
    2>>"$out/peers.err"
fi
if want host; then
  # Host CPU, f64: Lorenz (1e5) and Robertson (1e4) on one core and all cores beside Boost.Odeint,
  # then the peers' Rodas5 kernel compiled for the host (one core, one trajectory after another).
  nl=${HOST_N_LORENZ:-100000} nr=${HOST_N_ROBERTSON:-10000}
  echo "# host: $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)" >>"$log"
  kopt=(--k "$out/robertson_k_host.bin")
  write_k "${kopt[1]}" "$nr" 2>>"$out/peers.err" ||
    { kopt=(); echo "no NumPy: the bench draws the Robertson rate constants itself" >&2; }
  "$bin/fluxion-bench-solvers-host" "$nl" "$nr" "${kopt[@]}" | tee -a "$log"
  (cd "$peers" && timeout 300 python3 stiff_peers.py host-rodas5 f64 "$nr" final 2>>"$out/peers.err") | tee -a "$log"
fi
python3 "$here/bench/solver_ratios.py" "$out" | tee "$out/ratios.txt"
