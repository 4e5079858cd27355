#!/usr/bin/env bash
# On a GPU machine: the Python benchmarks beside the C++ launchers and the
# peers, in one invocation. JSON lines go to OUTDIR/python.jsonl.
#   bash bench/run_python.sh OUTDIR [PEERS_DIR]
# PEERS_DIR defaults to ../shared/peers, then ./.peers (a copy carried to the
# device machine). Also records what building a module costs (OUTDIR/
# module-build.jsonl: every unit's seconds from ninja's log, and the wall
# time of the whole module on this machine's cores).
set -uo pipefail
out=$(realpath -m "${1:?usage: bench/run_python.sh OUTDIR [PEERS_DIR]}")
mkdir -p "$out"
here=$(cd "$(dirname "$0")/.." && pwd)
peers=${2:-}
[ -n "$peers" ] || { [ -d "$here/../shared/peers" ] && peers="$here/../shared/peers"; }
[ -n "$peers" ] || peers="$here/.peers"
build=${BUILD:-/tmp/fluxion-python-bench}
export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1
meson setup "$build" "$here" --buildtype=release -Dtests=false -Dpython=enabled >"$out/python-bench-setup.log" 2>&1 ||
  { tail -20 "$out/python-bench-setup.log"; exit 1; }
module_file() {  # the build-relative file of Python module $1 under bench/python
  meson introspect "$build" --targets | python3 -c '
import json, os, sys
for t in json.load(sys.stdin):
    f = os.path.relpath(t["filename"][0], sys.argv[1])
    if t["type"] == "shared module" and f.startswith("bench/python/" + sys.argv[2] + "."):
        print(f)' "$build" "$1"
}
# The SEIR module alone first, so that its wall time is its own (not
# recorded when $BUILD already holds it).
seir=$(module_file seir_py)
built_before=$([ -f "$build/$seir" ] && echo yes)
start=$(date +%s.%N)
ninja -C "$build" "$seir" >"$out/python-bench-compile.log" 2>&1 || { tail -30 "$out/python-bench-compile.log"; exit 1; }
end=$(date +%s.%N)
[ -n "$built_before" ] || python3 - "$build" "$start" "$end" "$(nproc)" >"$out/module-build.jsonl" <<'PY'
import json, sys
build, start, end, cores = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
units = {}
for line in open(build + "/.ninja_log"):
    if line.startswith("#"):
        continue
    s, e, _, target, _ = line.rstrip("\n").split("\t")
    if "bench/python/seir_py" in target and target.endswith(".o"):
        units[target.split("units_")[-1].replace(".o", "")] = (int(e) - int(s)) / 1000.0
print(json.dumps({"module": "seir_py", "cores": cores, "wall_s": round(end - start, 1),
                  "unit_s": units, "sum_unit_s": round(sum(units.values()), 1)}))
PY
[ -n "$built_before" ] || cat "$out/module-build.jsonl"
ninja -C "$build" "$(module_file model_a_py)" "$(module_file lorenz_py)" >>"$out/python-bench-compile.log" 2>&1 &&
meson compile -C "$build" bench/fluxion-bench-device bench/fluxion-bench-ensemble bench/fluxion-bench-seir-log-density \
  >>"$out/python-bench-compile.log" 2>&1 ||
  { tail -30 "$out/python-bench-compile.log"; exit 1; }
{
  echo "# $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
  "$build/bench/fluxion-bench-device" --sweep
  "$build/bench/fluxion-bench-ensemble" 1000000 1024
  FLUXION_BENCH_ONLY=gpu "$build/bench/fluxion-bench-seir-log-density" "$out" 100000
  mkdir -p "$out/small" && FLUXION_BENCH_ONLY=gpu "$build/bench/fluxion-bench-seir-log-density" "$out/small" 1024
  FLUXION_PYTHON_PATH="$build/bench/python" python3 "$here/bench/python_bench.py" "$out" "$out/small"
  for dt in f64 f32; do
    for impl in cupy jax; do python3 "$peers/rhs_peers.py" "$impl" "$dt" 1048576; done
  done
} 2>&1 | tee "$out/python.jsonl"
