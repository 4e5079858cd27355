#!/usr/bin/env bash
# Compile-time scaling of Model A (BENCHMARKS.md) from P = 8 to P = 1024
# patches: wall time, peak compiler memory and object size of rhs, observe and the
# Jacobians (sparse values of jac_x, jac_p, obs_jac_x and jvp_x),
# with g++ (and nvcc on a .cu twin, where nvcc is found). Index extents must
# never be unrolled into types, so every quantity should stay flat.
# Prints a table and `max_ratio=R` (largest P=1024 / P=8 ratio); exits 1 if R > 1.3.
#
# Then, with nvcc, expression depth: compile_scaling/edg_chain.cu at 8 and 32
# nested nodes (DEPTH=0 skips it); exits 1 if the CPU time ratio exceeds 1.3.
#
# Then the vector-host model (compile_scaling/vector_host.hpp: 24 states, 29
# parameters, 15 aliases, piecewise rates, stage transport; the class of
# model with many distinct equations rather than large extents), one
# translation unit per entry point (-DENTRY=name: rhs, observe, the four
# sparse Jacobians' values, jvp_x, jvp_p; `none` is the model alone), with
# g++ -O2 and nvcc -O3 -arch=sm_90 (compile_scaling/compile_vh.sh, which
# bench/compile_ab.py runs too). Measured per translation unit: CPU time
# (user + sys of the compiler and every process it runs, from /usr/bin/time;
# CPU rather than wall time so that other work on the machine counts less)
# and peak resident memory of the largest of those processes. Targets: under
# 8 s with g++ and under 15 s with nvcc for every entry point; exits 1 when
# one is missed. VH=0 skips this part; VH_ENTRIES="rhs jvp_x" picks entries;
# REPEAT=n compiles each unit n times and reports the median CPU time (and
# the largest peak memory): on a shared 2-core machine one run's time can be
# 25% off.
# Usage: bench/compile_scaling.sh   (from anywhere; CXX and NVCC may be set)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src=$root/bench/compile_scaling
CXX=${CXX:-g++}
NVCC=${NVCC:-$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; } || true)}
LIMIT=1.3
inc=(-I "$root/include")
for d in /usr/local/cuda/include/cccl "${CUDA_HOME:-/nonexistent}/include/cccl"; do
  [ -d "$d" ] && { inc+=(-I "$d"); break; }
done
calc() { awk "BEGIN { print ($1) }"; }  # floating-point arithmetic without bc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# measure OUT CMD...: runs CMD, prints "seconds max_rss_kib" of it (children included).
measure() {
  local out=$1; shift
  if [ -x /usr/bin/time ]; then
    local start end
    start=$(date +%s.%N)
    /usr/bin/time -v -o "$work/time.txt" "$@" >"$work/log.txt" 2>&1 || { cat "$work/log.txt" >&2; return 1; }
    end=$(date +%s.%N)
    local rss
    rss=$(awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}' "$work/time.txt")
    echo "$(calc "$end - $start") $rss"
  else
    python3 - "$@" <<'PY'
import resource, subprocess, sys, time
t0 = time.monotonic()
r = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
dt = time.monotonic() - t0
if r.returncode:
    sys.stderr.write(r.stdout.decode(errors="replace")); sys.exit(1)
print(f"{dt:.3f} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}")
PY
  fi
}

# cpu CMD...: runs CMD, prints "cpu_seconds max_rss_kib" (user + sys,
# children included); needs /usr/bin/time.
cpu() {
  /usr/bin/time -v -o "$work/time.txt" "$@" >"$work/log.txt" 2>&1 || { cat "$work/log.txt" >&2; return 1; }
  awk -F: '/User time/ {u = $2} /System time/ {s = $2} /Maximum resident set size/ {r = $2}
           END {printf "%.2f %d\n", u + s, r}' "$work/time.txt"
}

# cpu_median N CMD...: cpu() N times; "median_cpu_seconds max_rss_kib".
cpu_median() {
  local n=$1; shift
  local times=() peak=0 r t m
  for ((i = 0; i < n; ++i)); do
    r=$(cpu "$@") || return 1
    read -r t m <<<"$r"
    times+=("$t")
    ((m > peak)) && peak=$m
  done
  printf '%s\n' "${times[@]}" | sort -g | awk -v peak="$peak" '{v[NR] = $1}
    END {printf "%.2f %d\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, peak}'
}

rows=()
declare -A val
run_one() {  # compiler label, P, command... (object written to $work/$label.$P.o)
  local label=$1 P=$2; shift 2
  local obj="$work/$label.$P.o"
  read -r secs rss < <(measure "$obj" "$@" -o "$obj")
  # Object size: the loadable sections (text + data + bss, as size(1) counts
  # them), i.e. what the object adds to a program. The symbol and string
  # tables are left out: they hold mangled names whose count depends on the
  # compiler's inlining choices and are stripped from a shipped binary.
  local size
  size=$(size "$obj" | awk 'NR == 2 {print $4}')
  val[$label.$P.time]=$secs; val[$label.$P.mem]=$rss; val[$label.$P.size]=$size
  rows+=("$(printf '%-6s %6d %10.2f %14d %12d' "$label" "$P" "$secs" "$rss" "$size")")
}

compilers=(g++)
for P in 8 1024; do
  run_one g++ "$P" "$CXX" -std=c++20 -O2 -DFLUXION_P=$P "${inc[@]}" -c "$src/model_a_host.cpp"
done
if [ -n "$NVCC" ]; then
  compilers+=(nvcc)
  for P in 8 1024; do
    run_one nvcc "$P" "$NVCC" -std=c++20 -O3 -arch=sm_90 -DFLUXION_P=$P "${inc[@]}" -c "$src/model_a_device.cu"
  done
else
  echo "nvcc not found: device twin skipped" >&2
fi

printf '%-6s %6s %10s %14s %12s\n' compiler P "time [s]" "max RSS [KiB]" "object [B]"
printf '%s\n' "${rows[@]}"
echo
max=0
for c in "${compilers[@]}"; do
  for q in time mem size; do
    r=$(calc "${val[$c.1024.$q]} / ${val[$c.8.$q]}")
    printf '%-6s %-5s ratio P=1024/P=8: %.3f\n' "$c" "$q" "$r"
    if [ "$(calc "$r > $max")" = 1 ]; then max=$r; fi
  done
done
printf 'max_ratio=%.3f\n' "$max"
status=0
if [ "$(calc "$max > $LIMIT")" = 1 ]; then status=1; fi

# --- expression depth (nvcc) -------------------------------------------------------
# compile_scaling/edg_chain.cu at 8 and 32 nested binary nodes: cudafe++ once
# took time exponential in depth (x1.9 a node; the file says why). CPU time of
# the whole nvcc run; the same 1.3 limit on the ratio.
if [ -n "$NVCC" ] && [ -x /usr/bin/time ] && [ "${DEPTH:-1}" != 0 ]; then
  read -r d4 _ < <(cpu "$NVCC" -std=c++20 -O3 -arch=sm_90 -DEDG_N=4 "${inc[@]}" -c "$src/edg_chain.cu" -o "$work/edg.o")
  read -r d16 _ < <(cpu "$NVCC" -std=c++20 -O3 -arch=sm_90 -DEDG_N=16 "${inc[@]}" -c "$src/edg_chain.cu" -o "$work/edg.o")
  r=$(calc "$d16 / $d4")
  echo
  printf 'expression depth (nvcc CPU s): 8 nodes %s, 32 nodes %s, ratio %.3f\n' "$d4" "$d16" "$r"
  if [ "$(calc "$r > $LIMIT")" = 1 ]; then status=1; fi
fi

# --- the vector-host model, one entry point a translation unit ----------------------
if [ "${VH:-1}" != 0 ]; then
  if [ ! -x /usr/bin/time ]; then
    echo "vector-host model skipped: /usr/bin/time (GNU time) is needed to measure CPU time" >&2
  else
    GXX_TARGET=8 NVCC_TARGET=15
    entries=(${VH_ENTRIES:-none rhs observe jac_x_values jac_p_values obs_jac_x_values obs_jac_p_values jvp_x jvp_p})
    echo
    REPEAT=${REPEAT:-1}
    echo "vector-host model: CPU time (user + sys; the median of ${REPEAT} runs) and peak RSS per entry point translation unit"
    echo "targets: g++ -O2 < ${GXX_TARGET} s, nvcc -O3 -arch=sm_90 < ${NVCC_TARGET} s per entry point ('none': the model alone, not checked)"
    printf '%-18s %10s %10s %10s %10s\n' entry "g++ [s]" "g++ [MB]" "nvcc [s]" "nvcc [MB]"
    missed=()
    for e in "${entries[@]}"; do
      # A failed compile prints its log and counts as a missed target.
      gs=failed gm=-
      if r=$(cpu_median "$REPEAT" env CXX="$CXX" bash "$src/compile_vh.sh" g++ "$e" "$work/vh.o"); then
        read -r gs gm <<<"$r"
        gm=$((gm / 1024))
      fi
      ns=- nm=-
      if [ -n "$NVCC" ]; then
        ns=failed
        if r=$(cpu_median "$REPEAT" env NVCC="$NVCC" bash "$src/compile_vh.sh" nvcc "$e" "$work/vh.o"); then
          read -r ns nm <<<"$r"
          nm=$((nm / 1024))
        fi
      fi
      printf '%-18s %10s %10s %10s %10s\n' "$e" "$gs" "$gm" "$ns" "$nm"
      [ "$e" = none ] && continue
      if [ "$gs" = failed ] || [ "$(calc "$gs >= $GXX_TARGET")" = 1 ]; then missed+=("g++ $e ${gs}s"); fi
      if [ "$ns" = failed ] || { [ "$ns" != - ] && [ "$(calc "$ns >= $NVCC_TARGET")" = 1 ]; }; then
        missed+=("nvcc $e ${ns}s")
      fi
    done
    if [ ${#missed[@]} -gt 0 ]; then
      printf 'vector-host targets missed: %s\n' "$(IFS=,; echo "${missed[*]}")"
      status=1
    else
      echo "vector-host targets met"
    fi
  fi
fi
exit $status
