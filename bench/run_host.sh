#!/usr/bin/env bash
# Host benchmarks side by side on this machine, in one invocation:
# fluxion-bench --target host (Model A through the host batch drivers), the
# hand-written C++ reference of shared/peers/host_ref.cpp built with the same
# compiler and flags as fluxion's benchmark (-O3 -march=native), and NumPy
# (shared/peers/rhs_peers.py numpy). JSON lines go into OUTDIR.
#   bash bench/run_host.sh OUTDIR [PEERS_DIR]
# PEERS_DIR defaults to ../shared/peers, then ./.peers. Installs NumPy
# (python3-numpy) when it is missing and apt is usable. MARCH=x86-64-v3
# builds both for that instruction set instead of -march=native (AVX2 and
# FMA: the host most people have, on a machine with AVX-512 too).
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

# (Re)configure: a build folder from an older checkout may lack a target.
reconfigure=""; [ -f "$build/build.ninja" ] && reconfigure="--reconfigure"
march=${MARCH:-native}
isa_opts=(-Dbench-native=true -Dcpp_args=)
[ "$march" = native ] || isa_opts=(-Dbench-native=false "-Dcpp_args=-march=$march")
CXX=$cxx meson setup $reconfigure "$build" "$here" --buildtype=release -Dtests=false "${isa_opts[@]}" \
  >"$out/host-setup.log" 2>&1 || { tail -20 "$out/host-setup.log"; exit 1; }
meson compile -C "$build" bench/fluxion-bench bench/host-bandwidth bench/host-movement >"$out/host-compile.log" 2>&1 ||
  { tail -30 "$out/host-compile.log"; exit 1; }
"$cxx" -O3 "-march=$march" -std=c++20 "$peers/host_ref.cpp" -o "$build/host_ref" || exit 1
rounds=${ROUNDS:-3}
B_CACHE=${B_CACHE:-"256 264"}

# NumPy: the system Python's (python3-numpy), installed when missing.
py=""
for cand in python3 /usr/bin/python3; do
  if command -v "$cand" >/dev/null && "$cand" -c 'import numpy' 2>/dev/null; then py=$cand; break; fi
done
if [ -z "$py" ] && command -v apt-get >/dev/null; then
  sudo_cmd=""; [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get install -y -qq python3-numpy >/dev/null 2>&1 || true
  /usr/bin/python3 -c 'import numpy' 2>/dev/null && py=/usr/bin/python3
fi
# A shared machine's speed drifts by tens of percent from one minute to the
# next, so fluxion, the hand-written reference and NumPy alternate, `rounds` times,
# at B (memory-bound here) and at the sizes of B_CACHE (batches that stay in
# L2, where the evaluation itself bounds both: a power of two, whose
# structure-of-arrays element streams collide in the same cache sets, and
# one that is not); bench/ratios.py takes the medians.
echo "# $(date -u +%FT%TZ) $(uname -m) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $("$cxx" --version | head -1), -march=$march" |
  tee "$out/fluxion-host.jsonl" >"$out/host-ref.jsonl"
for r in $(seq "$rounds"); do
  for b in "$B" $B_CACHE; do
    "$build/bench/fluxion-bench" --target host --batch "$b" | tee -a "$out/fluxion-host.jsonl"
    "$build/host_ref" "$b" | tee -a "$out/host-ref.jsonl"
  done
  for dt in f64 f32; do
    [ -n "$py" ] && timeout 300 "$py" "$peers/rhs_peers.py" numpy "$dt" "$B" 2>>"$out/numpy.err" | tee -a "$out/numpy.jsonl"
  done
  # What moving Model A's bytes costs without fluxion: memcpy, and hand-written
  # movers in each order (the floor beyond L2).
  "$build/bench/host-bandwidth" | tee -a "$out/host-bandwidth.jsonl"
  "$build/bench/host-movement" "$B" | tee -a "$out/host-movement.jsonl"
done
[ -n "$py" ] || echo "run_host: NumPy unavailable, its rows are skipped" | tee "$out/numpy.err"
# Throughput against batch size: fluxion (AoS, SoA and pitched SoA on one
# thread, SoA on all) and the hand-written reference (up to 2^18: its
# structure-of-arrays runs take seconds an evaluation beyond).
"$build/bench/fluxion-bench" --target host --batch "$B" --sweep | grep -E '"bench": "rhs"' |
  tee "$out/fluxion-host-sweep.jsonl"
for e in 10 12 14 16 18; do
  "$build/host_ref" $((1 << e)) | tee -a "$out/host-ref-sweep.jsonl"
done

