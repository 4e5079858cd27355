#!/usr/bin/env bash
# Builds fluxion into build/ (-O1: the tests compile in half to three
# quarters of -O2's time, and none of them measures speed) and runs every
# test suite. The suites that drive the library over caller buffers
# (layout, exec, solve, infer) are built there with AddressSanitizer and
# UndefinedBehaviorSanitizer, unoptimized but for two tests
# (-Dtest-sanitizers=true, tests/meson.build): any finding stops the test
# and fails it. FLUXION_SANITIZE=0 builds them plain.
# Prints a last line "N passed, N failed, N skipped".
# Installs missing build tools first (see scripts/install-deps.sh).
#
# Extra arguments go to `meson test`, e.g.
#   bash scripts/test.sh --suite symbolic
# Exits non-zero when a build or any test fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh

# nvcc is optional; find the toolkit in its usual place even when not on PATH.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="$PATH:/usr/local/cuda/bin"
fi

# Sets up build dir $1 with the options that follow, or reconfigures it
# (this also picks up new public headers and test files).
setup() {
  local dir=$1
  shift
  if [ -f "$dir/meson-private/coredata.dat" ]; then
    meson setup --reconfigure "$dir" "$@" || meson setup --wipe "$dir" "$@"
  else
    meson setup "$dir" "$@"
  fi
}

# Benchmarks are not tests: they are built where they run (bench/run_*.sh on
# a GPU machine), not by the test command, whose time they would double.
# Without a GPU the device tests skip, so their device code is built as PTX
# alone: it still goes through the CUDA front end and NVVM, and ptxas (half
# of nvcc's time on the largest translation units) is left to the driver of
# a machine that runs it. With a GPU, build/ keeps its cuda-architectures
# (default 90, or what it was configured with); FLUXION_CUDA_ARCHITECTURES
# sets it in either case.
# The device units of the Python test modules are left out there too (their
# cases skip without a GPU; scripts/qualify-python.sh builds and runs them).
arch_opt=()
gpus=$(nvidia-smi -L 2>/dev/null || true)
if [ -n "${FLUXION_CUDA_ARCHITECTURES:-}" ]; then
  arch_opt=("-Dcuda-architectures=$FLUXION_CUDA_ARCHITECTURES")
elif ! grep -q '^GPU' <<<"$gpus"; then
  arch_opt=("-Dcuda-architectures=compute_90" "-Dpython-cuda=disabled")
fi
# No debug info (-O2 alone): on these template-heavy tests -g made g++ 2.5
# times slower (tests/exec/host_batch.cpp: 47 s -> 19 s of CPU).
sanitize=true
[ "${FLUXION_SANITIZE:-1}" != 0 ] || sanitize=false
setup build -Dbench=false -Ddebug=false -Doptimization=1 -Dtest-sanitizers=$sanitize "${arch_opt[@]}"
meson compile -C build

log=build/meson-logs/testlog.json
rm -f "$log"
rc=0
meson test -C build --print-errorlogs --num-processes 2 "$@" || rc=$?

if [ ! -f "$log" ]; then
  echo "test.sh: meson test wrote no $log (exit status $rc)" >&2
  [ "$rc" != 0 ] || rc=1
  exit "$rc"
fi

python3 - "$rc" "$log" <<'PY'
import json, sys
rc = int(sys.argv[1])
passed = failed = skipped = 0
bad = []
with open(sys.argv[2], encoding="utf-8") as f:
    for line in f:
        if not line.strip():
            continue
        t = json.loads(line)
        r = t.get("result")
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r == "SKIP":
            skipped += 1
        else:  # FAIL, TIMEOUT, UNEXPECTEDPASS, ERROR, INTERRUPT
            failed += 1
            bad.append(f"  {r}: {t.get('name')}")
if bad:
    print("failed tests:")
    print("\n".join(bad))
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed or rc else 0)
PY
