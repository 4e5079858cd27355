#!/usr/bin/env bash
# Host benchmarks side by side on this machine, in one invocation:
# fluxion-bench --target host (Model A through the host batch drivers), the
# hand-written C++ reference of shared/peers/host_ref.cpp built with the same
# compiler and flags as fluxion's benchmark (-O3 -march=native), and NumPy
# (shared/peers/rhs_peers.py numpy). JSON lines go into OUTDIR.
#   bash bench/run_host.sh OUTDIR [PEERS_DIR]
# PEERS_DIR defaults to ../shared/peers, then ./.peers. Installs NumPy
# (python3-numpy) when it is missing and apt is usable.
set -uo pipefail
out=$(realpath -m "${1:?usage: bench/run_host.sh OUTDIR [PEERS_DIR]}")
mkdir -p "$out"
here=$(cd "$(dirname "$0")/.." && pwd)
peers=${2:-}
[ -n "$peers" ] || { [ -d "$here/../shared/peers" ] && peers="$here/../shared/peers"; }
[ -n "$peers" ] || peers="$here/.peers"
build=${BUILD:-/tmp/fluxion-bench-host}
B=${B:-65536}
cxx=${CXX:-c++}

if [ ! -f "$build/build.ninja" ]; then
  CXX=$cxx meson setup "$build" "$here" --buildtype=release -Dtests=false >"$out/host-setup.log" 2>&1 ||
    { tail -20 "$out/host-setup.log"; exit 1; }
fi
meson compile -C "$build" bench/fluxion-bench >"$out/host-compile.log" 2>&1 || { tail -30 "$out/host-compile.log"; exit 1; }
"$cxx" -O3 -march=native -std=c++20 "$peers/host_ref.cpp" -o "$build/host_ref" || exit 1

{
  echo "# $(date -u +%FT%TZ) $(uname -m) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $("$cxx" --version | head -1)"
  "$build/bench/fluxion-bench" --target host --batch "$B" --sweep
} | tee "$out/fluxion-host.jsonl"
"$build/host_ref" "$B" | tee "$out/host-ref.jsonl"

if ! python3 -c 'import numpy' 2>/dev/null && command -v apt-get >/dev/null; then
  sudo_cmd=""; [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get install -y -qq python3-numpy >/dev/null 2>&1 || true
fi
for dt in f64 f32; do
  timeout 300 python3 "$peers/rhs_peers.py" numpy "$dt" "$B" 2>>"$out/numpy.err" | tee -a "$out/numpy.jsonl"
done
