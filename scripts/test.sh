#!/usr/bin/env bash
# Builds fluxion into build/ (-O1: the tests compile in half to three
# quarters of -O2's time, and none of them measures speed) and runs every
# test suite; then builds the host-side suites that run the library on
# buffers (layout, exec, solve, infer) again with AddressSanitizer and
# UndefinedBehaviorSanitizer into build-sanitize/ (unoptimized but for two
# tests, no CUDA, no examples or benchmarks; any finding stops the test and
# fails it) and runs them there.
# Prints a last line "N passed, N failed, N skipped" over both runs.
# Installs missing build tools first (see scripts/install-deps.sh).
#
# Extra arguments go to the `meson test` of build/, e.g.
#   bash scripts/test.sh --suite symbolic
# and then the sanitizer run is left out, unless FLUXION_SANITIZE=1;
# FLUXION_SANITIZE=0 always leaves it out.
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
setup build -Dbench=false -Ddebug=false -Doptimization=1 "${arch_opt[@]}"
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

# --- ASan + UBSan -----------------------------------------------------------
# -O0: about half the compile time of -O1, but for the two tests whose runs
# dominate (solve/lanes, exec/threads_and_lanes), built -O1 and started first
# (tests/meson.build; the -march=native twin of the second is left out
# there). UBSan stops at its first finding (-fno-sanitize-recover), and so
# does ASan.
san=build-sanitize
san_log=$san/meson-logs/testlog.json
# Not symbolic: what it checks is computed at compile time (where undefined
# behaviour is a compile error). model is in: its element_terms and
# alias_shape (run here when they were in the hierarchy suite) evaluate
# models on buffers, in SIMD lanes too.
# The suites that drive the library over caller buffers (checks, batch
# drivers, solvers, log-densities): the model and compile suites evaluate
# the same evaluators one instance at a time, and the exec suite runs them
# over buffers.
san_suites=(layout exec solve infer)
san_rc=0
sanitize=${FLUXION_SANITIZE:-auto}
if [ "$sanitize" = auto ]; then
  if [ $# -eq 0 ]; then sanitize=1; else sanitize=0; fi
fi
rm -f "$san_log"
if [ "$sanitize" = 1 ]; then
  start=$(date +%s)
  setup "$san" -Db_sanitize=address,undefined -Db_lundef=false -Dcpp_args=-fno-sanitize-recover=all \
    -Doptimization=0 -Ddebug=false -Dcuda=disabled -Dexamples=false -Dbench=false
  # Only the executables of those suites (not the header checks): every
  # target output that a test runs or names on its command line (a test
  # may run python3 on executables it names).
  mapfile -t san_targets < <(python3 -c '
import json, os, subprocess, sys
build = os.path.realpath(sys.argv[1])
suites = set(sys.argv[2:])
def introspect(what):
    return json.loads(subprocess.check_output(["meson", "introspect", what, build]))
outputs = {os.path.realpath(os.path.join(build, f))
           for t in introspect("--targets") for f in t["filename"]}
wanted = set()
for t in introspect("--tests"):
    if any(s.split(":")[-1] in suites for s in t["suite"]):
        for arg in t["cmd"]:
            path = os.path.realpath(os.path.join(build, arg))
            if path in outputs:
                wanted.add(os.path.relpath(path, build))
print("\n".join(sorted(wanted)))
' "$san" "${san_suites[@]}")
  ninja -C "$san" "${san_targets[@]}"
  suite_args=()
  for s in "${san_suites[@]}"; do suite_args+=(--suite "$s"); done
  ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1:detect_leaks=1} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1} \
    meson test -C "$san" --no-rebuild --print-errorlogs --num-processes 2 --timeout-multiplier 4 "${suite_args[@]}" ||
    san_rc=$?
  echo "test.sh: the ASan + UBSan build and run took $(($(date +%s) - start)) s"
  if [ ! -f "$san_log" ]; then
    echo "test.sh: meson test wrote no $san_log (exit status $san_rc)" >&2
    [ "$san_rc" != 0 ] || san_rc=1
  fi
fi

python3 - "$rc" "$san_rc" "$log" "$san_log" <<'PY'
import json, os, sys
rc, san_rc = int(sys.argv[1]), int(sys.argv[2])
passed = failed = skipped = 0
bad = []
for log, label in ((sys.argv[3], ""), (sys.argv[4], " (ASan + UBSan)")):
    if not os.path.exists(log):
        continue
    with open(log, encoding="utf-8") as f:
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
                bad.append(f"  {r}: {t.get('name')}{label}")
if bad:
    print("failed tests:")
    print("\n".join(bad))
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed or rc or san_rc else 0)
PY
