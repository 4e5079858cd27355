#!/usr/bin/env bash
# The Python device gate, on a GPU machine: builds the python suite's
# modules with CUDA into $BUILD (default /tmp/fluxion-python-gate), then runs
# qualify/python_gate.py, which checks CuPy, CUDA and a device operation
# first and then requires the whole python suite to run with no failure and
# no skip. Writes python-gate-junit.xml and python-gate-receipt.json into the
# folder $1 (default: $OUT or ./gpu-evidence). Exits non-zero unless qualified.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=${1:-${OUT:-gpu-evidence}}
mkdir -p "$out"
build=${BUILD:-/tmp/fluxion-python-gate}
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="$PATH:/usr/local/cuda/bin"
fi
if [ -f "$build/meson-private/coredata.dat" ]; then
  meson setup --reconfigure "$build" -Dpython=enabled -Dcuda=enabled -Dpython-cuda=enabled >"$out/python-gate-setup.log" 2>&1
else
  meson setup "$build" --buildtype=release -Dpython=enabled -Dcuda=enabled -Dpython-cuda=enabled -Dbench=false >"$out/python-gate-setup.log" 2>&1
fi || { echo "not qualified: meson setup failed (python3-dev, pybind11, NumPy and nvcc are needed)"; tail -20 "$out/python-gate-setup.log"; exit 1; }
# Every Python module of the build (the suite's and the example's), by file.
modules=$(meson introspect "$build" --targets | python3 -c '
import json, os, sys
build = sys.argv[1]
for t in json.load(sys.stdin):
    if t["type"] == "shared module":
        print(os.path.relpath(t["filename"][0], build))' "$build")
ninja -C "$build" $modules >"$out/python-gate-compile.log" 2>&1 ||
  { echo "not qualified: the python modules did not build"; tail -30 "$out/python-gate-compile.log"; exit 1; }
paths=()
for f in $modules; do paths+=("$build/$(dirname "$f")"); done
FLUXION_PYTHON_PATH=$(IFS=:; echo "${paths[*]}") python3 qualify/python_gate.py \
  --modules "$build/tests/python" --junitxml "$out/python-gate-junit.xml" --receipt "$out/python-gate-receipt.json"
