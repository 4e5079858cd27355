#!/usr/bin/env bash
# The MPI layer's host benchmark (bench/mpi_scaling.cpp) under mpirun: each
# rank count of RANKS (default "1 2") with one thread a rank, then one rank
# with as many threads as the largest rank count (the same cores, shared by
# threads instead of ranks).
#   bash bench/run_mpi.sh OUT [BUILD]
# BUILD: a Meson build directory with MPI and -Dbench=true (default build/);
# its bench/fluxion-bench-mpi is built first (ninja -j1). Extra arguments
# for the benchmark in ARGS (e.g. ARGS="--lorenz 100000 --repeats 7").
# Writes OUT/mpi_scaling.jsonl (every JSON line) and OUT/mpi_scaling.md
# (the tables of docs/distributed.md).
set -euo pipefail
out=$(realpath -m "${1:?usage: bench/run_mpi.sh OUT [BUILD]}")
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath -m "${2:-$here/build}")
mkdir -p "$out"
ninja -C "$build" -j1 bench/fluxion-bench-mpi >/dev/null
bin=$build/bench/fluxion-bench-mpi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
over=()
mpirun --version 2>/dev/null | grep -q 'Open MPI' && over=(--oversubscribe)
log=$out/mpi_scaling.jsonl
: >"$log"
most=1
for r in ${RANKS:-1 2}; do
  mpirun -n "$r" "${over[@]}" "$bin" ${ARGS:-} | tee -a "$log"
  [ "$r" -gt "$most" ] && most=$r
done
mpirun -n 1 "$bin" --threads "$most" ${ARGS:-} | tee -a "$log"
python3 - "$log" >"$out/mpi_scaling.md" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
def key(r):
    return (r["case"], r.get("scaling", ""), r.get("schedule", ""))
one = {key(r): r for r in rows if r["ranks"] == 1 and r.get("threads_per_rank", 1) == 1}
print("| case | scaling | schedule | ranks x threads | trajectories | seconds (best, median) | trajectories/s | speed-up | efficiency | chunks moved | steps (min-max) |")
print("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for r in rows:
    if "trajectories_per_second" not in r:
        continue
    base = one.get(key(r))
    p = r["ranks"] * r["threads_per_rank"]
    speed = r["trajectories_per_second"] / base["trajectories_per_second"] if base else float("nan")
    print(f"| {r['case']} | {r['scaling']} | {r['schedule']} | {r['ranks']} x {r['threads_per_rank']} | "
          f"{r['trajectories']} | {r['seconds']:.3f}, {r['median_seconds']:.3f} | {r['trajectories_per_second']:.0f} | "
          f"{speed:.2f} | {speed / p:.2f} | {r['chunks_moved']} | {r['steps_min']}-{r['steps_max']} |")
dyn = {}
for r in rows:
    if r["case"].startswith("uneven") and r["threads_per_rank"] == 1:
        dyn.setdefault((r["case"], r["ranks"]), {})[r["schedule"]] = r["seconds"]
print()
print("| ensemble | ranks | static s | dynamic s | dynamic / static speed-up |")
print("| --- | ---: | ---: | ---: | ---: |")
for (case, ranks), s in sorted(dyn.items()):
    if "static" in s and "dynamic" in s:
        print(f"| {case} | {ranks} | {s['static']:.3f} | {s['dynamic']:.3f} | {s['static'] / s['dynamic']:.2f} |")
print()
print("| measure | ranks | value |")
print("| --- | ---: | --- |")
for r in rows:
    if r["case"] == "overhead":
        print(f"| a call's cost beyond its work (one trajectory a rank) | {r['ranks']} | {r['seconds_per_call'] * 1e6:.1f} us |")
    elif r["case"] == "sum":
        print(f"| fx::mpi::sum of 1e6 doubles a rank | {r['ranks']} | {r['seconds_per_call'] * 1e3:.2f} ms ({r['values_per_second_per_rank']:.2e} values/s a rank) |")
    elif r["case"] == "gather":
        print(f"| gather of {r['trajectories']} Lorenz final states, statuses, statistics to rank 0 | {r['ranks']} | {r['bytes_per_second'] / 1e6:.0f} MB/s |")
PY
cat "$out/mpi_scaling.md"
