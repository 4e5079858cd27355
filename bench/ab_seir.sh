#!/usr/bin/env bash
# On a GPU machine: the SEIR log-density benchmark (bench/seir_log_density.cu)
# built against several header trees and macro settings, run alternately in
# one invocation, with each adjoint kernel's duration under Nsight Compute:
# how the adjoint kernels' changes are compared (docs/guide/fitting.md).
#   bash bench/ab_seir.sh OUTDIR NAME=INCLUDE_DIR[:NVCC FLAGS] ...
# e.g., against the headers of an earlier commit (git archive C include | tar -x -C /tmp/base):
#   bash bench/ab_seir.sh /tmp/ab base=/tmp/base/include new=include \
#     "t8=include:-DFLUXION_ADJOINT_TERMS_MIN_BLOCKS=8"
# ONLY (default adjoint) is the bench's FLUXION_BENCH_ONLY (all: every GPU
# measurement, no host part); REPS (default 2) runs of each, alternating;
# N (default 100000) parameter sets; NCU=0 skips Nsight Compute.
# Builds whose results must agree bit for bit show the same digest.
# Writes OUTDIR/ab.jsonl (each line tagged with its build and run),
# OUTDIR/ptxas.txt, OUTDIR/ncu_durations.txt, and prints the medians.
set -uo pipefail
out=$(realpath -m "${1:?usage: bench/ab_seir.sh OUTDIR NAME=INCLUDE_DIR[:FLAGS] ...}")
shift
[ $# -gt 0 ] || { echo "no variants given" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out/bin"
cccl=$(dirname "$(command -v nvcc)")/../include/cccl
names=()
for v in "$@"; do
  name=${v%%=*} spec=${v#*=}
  inc=${spec%%:*} flags=""
  [ "$spec" != "$inc" ] && flags=${spec#*:}
  names+=("$name")
  # shellcheck disable=SC2086 # flags: several nvcc flags
  nvcc -std=c++20 -O3 -lineinfo -gencode arch=compute_90,code=sm_90 -I"$(realpath -m "$inc")" -isystem "$cccl" \
    $flags -Xptxas -v "$here/bench/seir_log_density.cu" -o "$out/bin/$name" >"$out/bin/$name.log" 2>&1 ||
    echo "build of $name failed: $out/bin/$name.log" &
done
wait
# ptxas per kernel: its registers and its own stack and spills (for the SEIR
# bench, float's kernels come first, then double's).
for name in "${names[@]}"; do
  awk -v b="$name" '/Compiling entry function/ { k = "?"; if (match($0, /detail[0-9]+[a-z_]+_kernel/)) { k = substr($0, RSTART, RLENGTH); sub(/detail[0-9]+/, "", k) } s = "" }
    /bytes stack frame/ && s == "" { s = $0; gsub(/^ +/, "", s) }
    /Used [0-9]+ registers/ && k != "" { match($0, /Used [0-9]+ registers/); print b, k, substr($0, RSTART, RLENGTH) ";", s; k = "" }' \
    "$out/bin/$name.log"
done >"$out/ptxas.txt"
log=$out/ab.jsonl
: >"$log"
for rep in $(seq "${REPS:-2}"); do
  for name in "${names[@]}"; do
    [ -x "$out/bin/$name" ] || continue
    mkdir -p "$out/run-$name"
    FLUXION_BENCH_ONLY=${ONLY:-adjoint} "$out/bin/$name" "$out/run-$name" "${N:-100000}" |
      sed "s/^{/{\"build\": \"$name\", \"rep\": $rep, /" >>"$log"
  done
done
if [ "${NCU:-1}" != 0 ]; then
  for name in "${names[@]}"; do
    [ -x "$out/bin/$name" ] || continue
    FLUXION_BENCH_ONLY=adjoint timeout 120 ncu --metrics gpu__time_duration.sum,launch__registers_per_thread \
      -k regex:adjoint_ -c 3 "$out/bin/$name" "$out/run-$name" "${N:-100000}" 2>&1 |
      grep -E "^  void adjoint_|duration|registers" | sed -E 's/<.*//' | paste - - - | sed -E "s/^/$name /; s/ +/ /g"
  done >"$out/ncu_durations.txt"
fi
python3 - "$log" <<'PY'
import json, sys, collections
runs = collections.defaultdict(list)
digests = collections.defaultdict(set)
for line in open(sys.argv[1]):
    r = json.loads(line)
    runs[(r["variant"], r["dtype"], r["what"], r["build"])].append(r["median_ms"])
    digests[(r["variant"], r["dtype"], r["what"], r["build"])].add(r.get("digest", "-"))
for k in sorted(runs):
    print(f"{k[0]:6} {k[1]} {k[2]:24} {k[3]:12} " + ", ".join(f"{v:.3f}" for v in runs[k]) + " ms  digest "
          + ",".join(sorted(digests[k])))
PY
cat "$out/ncu_durations.txt" 2>/dev/null
