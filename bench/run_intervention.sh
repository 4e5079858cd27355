#!/usr/bin/env bash
# On a GPU machine: the intervention model (SEIR, a lockdown on day 30 and a
# vaccination pulse on day 60, events at given times) on 1e5 and 1e6
# trajectories, fluxion (bench/intervention_device.cu) and diffrax
# (bench/intervention_diffrax.py) on the same inputs in one invocation, and
# the ratio of their times.
#   bash bench/run_intervention.sh OUTDIR [N ...]
# Writes OUTDIR/intervention.jsonl and prints each line and the ratios.
set -euo pipefail
out=$(realpath -m "${1:?usage: bench/run_intervention.sh OUTDIR [N ...]}")
shift
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100000 1000000)
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
cccl=$(dirname "$(command -v nvcc)")/../include/cccl
nvcc -std=c++20 -O3 -gencode arch=compute_90,code=sm_90 -I"$here/include" -I"$here/bench" -isystem "$cccl" \
  -DFLUXION_HAVE_LIBCUDACXX=1 "$here/bench/intervention_device.cu" -o "$out/fluxion-bench-intervention"
export XLA_PYTHON_CLIENT_PREALLOCATE=false
INTERVENTION_DIR="$out" "$out/fluxion-bench-intervention" "${sizes[@]}" | tee "$out/intervention.jsonl"
python3 "$here/bench/intervention_diffrax.py" "$out" "${sizes[@]}" | tee -a "$out/intervention.jsonl"
python3 - "$out/intervention.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
mine = {(r["dtype"], r["N"]): r for r in rows if r["impl"].startswith("fluxion")}
for r in rows:
    if r["impl"].startswith("diffrax") and (r["dtype"], r["N"]) in mine:
        f = mine[(r["dtype"], r["N"])]
        print("%s N=%d: fluxion %.3f ms (%.1f steps, err %.2g), diffrax %.3f ms (%.1f steps, err %.2g): %.1fx"
              % (r["dtype"], r["N"], f["median_ms"], f["steps_mean"], f["ref_err"], r["median_ms"],
                 r["steps_mean"], r["ref_err"], r["median_ms"] / f["median_ms"]))
PY
