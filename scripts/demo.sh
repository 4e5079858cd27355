#!/usr/bin/env bash
# Quick-start demo: builds the 'demo' example into build/ and runs it.
# Installs missing build tools first (see scripts/install-deps.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh

# nvcc is optional; find the toolkit in its usual place even when not on PATH.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="$PATH:/usr/local/cuda/bin"
fi

if [ ! -f examples/demo.cpp ]; then
  echo "demo.sh: examples/demo.cpp does not exist yet" >&2
  exit 1
fi
# Reconfigure an existing build dir (so a newly listed example is known);
# set up a fresh one otherwise.
if [ -f build/meson-private/coredata.dat ]; then
  meson setup --reconfigure build || meson setup --wipe build
else
  meson setup build
fi
# examples/demo, not plain demo: a test of the same name may exist elsewhere.
# With the CUDA toolkit the nvcc-built demo runs instead: on the GPU when one is
# usable, on the host (saying so) otherwise.
if meson introspect build --targets 2>/dev/null | grep -q '"name": "demo-gpu"'; then
  meson compile -C build examples/demo-gpu
  ./build/examples/demo-gpu
else
  meson compile -C build examples/demo
  ./build/examples/demo
fi
