#!/usr/bin/env bash
# On a GPU machine: fluxion's device benchmarks (Model A's evaluators, the
# Lorenz and Robertson ensembles, the SEIR log-density) built against several
# header trees, run alternately in one invocation beside the hand-written
# CUDA peers: how a change that must not move any device figure is checked.
#   bash bench/ab_device.sh OUTDIR PEERS_DIR NAME=INCLUDE_DIR ...
# e.g., against the headers of an earlier commit:
#   git archive C include | tar -x -C /tmp/before
#   bash bench/ab_device.sh /tmp/ab ../shared/peers before=/tmp/before/include after=include
# REPS (default 3) runs of each build, alternating; PEERS=0 skips the peers.
# Writes OUTDIR/ab.jsonl (each line tagged with its build and run),
# OUTDIR/peers.jsonl, OUTDIR/ptxas.txt, and prints each figure's median per
# build, the ratio of each build to the first, and fluxion against its peer.
set -uo pipefail
out=$(realpath -m "${1:?usage: bench/ab_device.sh OUTDIR PEERS_DIR NAME=INCLUDE_DIR ...}")
peers=$(realpath -m "${2:?usage: bench/ab_device.sh OUTDIR PEERS_DIR NAME=INCLUDE_DIR ...}")
shift 2
[ $# -gt 0 ] || { echo "no header trees given" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1
mkdir -p "$out/bin"
cccl=$(dirname "$(command -v nvcc)")/../include/cccl
benches="device_bench ensemble_device stiff_device seir_log_density"
names=()
for v in "$@"; do
  name=${v%%=*} inc=$(realpath -m "${v#*=}")
  names+=("$name")
  for b in $benches; do
    nvcc -std=c++20 -O3 -gencode arch=compute_90,code=sm_90 -I"$inc" -I"$here/tests" -isystem "$cccl" -DFLUXION_HAVE_LIBCUDACXX=1 \
      -Xptxas -v "$here/bench/$b.cu" -o "$out/bin/$name-$b" >"$out/bin/$name-$b.log" 2>&1 ||
      echo "build of $name-$b failed: $out/bin/$name-$b.log" &
  done
done
wait
for name in "${names[@]}"; do
  for b in $benches; do
    awk -v b="$name-$b" '/Compiling entry function/ { k = $NF; s = "" }
      /bytes stack frame/ && s == "" { s = $0; gsub(/^ +/, "", s) }
      /Used [0-9]+ registers/ && k != "" { match($0, /Used [0-9]+ registers/); print b, k, substr($0, RSTART, RLENGTH) ";", s; k = "" }' \
      "$out/bin/$name-$b.log"
  done
done >"$out/ptxas.txt"
python3 - "$out/robertson_k.bin" <<'PY'
import sys, numpy as np
K = np.array([0.04, 3e7, 1e4]) * np.random.default_rng(7).uniform(0.5, 1.5, (1000000, 3))
K.astype("<f8").tofile(sys.argv[1])
PY
log=$out/ab.jsonl
: >"$log"
tag() { sed -n "s/^{/{\"build\": \"$1\", \"rep\": $2, /p"; }
for rep in $(seq "${REPS:-3}"); do
  for name in "${names[@]}"; do
    bin=$out/bin/$name
    mkdir -p "$out/seir-$name"
    [ -x "$bin-device_bench" ] && "$bin-device_bench" | tag "$name" "$rep" >>"$log"
    [ -x "$bin-ensemble_device" ] && "$bin-ensemble_device" 1000000 | tag "$name" "$rep" >>"$log"
    [ -x "$bin-stiff_device" ] && "$bin-stiff_device" "$out/robertson_k.bin" "$peers/robertson_ref_seed7_n256_radau1e-10.npy" \
      1000000 | tag "$name" "$rep" >>"$log"
    [ -x "$bin-seir_log_density" ] && FLUXION_BENCH_ONLY=all "$bin-seir_log_density" "$out/seir-$name" 100000 |
      tag "$name" "$rep" >>"$log"
  done
done
plog=$out/peers.jsonl
: >"$plog"
if [ "${PEERS:-1}" != 0 ]; then
  (
    cd "$peers" || exit 1
    for dt in f64 f32; do timeout 150 python3 rhs_peers.py cupy "$dt" 1048576; done
    for dt in f64 f32; do timeout 150 python3 ode_peers.py cuda-tsit5-adaptive "$dt" 1000000 adaptive; done
    timeout 300 python3 stiff_peers.py ref f64 256 final >/dev/null
    for impl in cuda-rodas5 cuda-rosenbrock23; do timeout 150 python3 stiff_peers.py "$impl" f64 1000000 final; done
  ) 2>"$out/peers.err" | grep '^{' >>"$plog"
fi
python3 - "$log" "$plog" "${names[@]}" <<'PY'
import json, sys, statistics, collections
log, plog, names = sys.argv[1], sys.argv[2], sys.argv[3:]
def key(r):
    if "bench" in r: return (r["bench"], r["dtype"], r["B"]), "ms"
    if "what" in r: return ("seir " + r["variant"] + " " + r["what"], r["dtype"], r["N"]), "median_ms"
    return (r["impl"] + " " + r.get("mode", ""), r["dtype"], r["N"]), "median_ms"
runs = collections.defaultdict(list)
for line in open(log):
    r = json.loads(line)
    k, f = key(r)
    runs[(k, r["build"])].append(r[f])
peer_of = {"rhs": "cupy", "fluxion-tsit5 adaptive": "cuda-tsit5-adaptive adaptive",
           "fluxion-rodas5p final": "cuda-rodas5 final", "fluxion-rosenbrock23 final": "cuda-rosenbrock23 final"}
peer = {}
for line in open(plog):
    r = json.loads(line)
    if "median_ms" in r or "ms" in r:
        name = r.get("impl", "") + ((" " + r["mode"]) if "mode" in r else "")
        peer[(name, r["dtype"], r.get("N", r.get("B")))] = r.get("median_ms", r.get("ms"))
print("figure | dtype | size | " + " | ".join(f"{n} ms" for n in names) + " | " +
      " | ".join(f"{n}/{names[0]}" for n in names[1:]) + " | peer ms | " + " | ".join(f"{n}/peer" for n in names))
for k in sorted({k for k, _ in runs}):
    med = [statistics.median(runs[(k, n)]) if runs.get((k, n)) else float("nan") for n in names]
    p = peer.get((peer_of.get(k[0], "?"), k[1], k[2]))
    print(f"{k[0]} | {k[1]} | {k[2]} | " + " | ".join(f"{m:.4f}" for m in med) + " | " +
          " | ".join(f"{m / med[0]:.3f}" for m in med[1:]) + " | " +
          (f"{p:.4f} | " + " | ".join(f"{m / p:.3f}" for m in med) if p else "- | " + " | ".join("-" for _ in med)))
PY
