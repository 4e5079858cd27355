#!/usr/bin/env bash
# On a GPU machine (the device tool): build everything, run the whole test
# suite, fluxion-qualify and compute-sanitizer over the device cases, and put
# the evidence in the folder named by $1 (default: $OUT or ./gpu-evidence).
set -uo pipefail
out=${1:-${OUT:-gpu-evidence}}
mkdir -p "$out"
build=${BUILD:-/tmp/fluxion-gpu-build}
meson setup "$build" --buildtype=release --wipe >"$out/setup.log" 2>&1 || meson setup "$build" --buildtype=release >"$out/setup.log" 2>&1 || { tail -30 "$out/setup.log"; exit 1; }
# SUITE=device: only fluxion-qualify and the device cases (the suite named
# device), for a device call too short for the whole suite's build.
if [ "${SUITE:-all}" = device ]; then
  meson compile -C "$build" qualify/fluxion-qualify tests/device/device_tests >"$out/compile.log" 2>&1 ||
    { tail -40 "$out/compile.log"; exit 1; }
  meson test -C "$build" --no-rebuild --suite device --num-processes "$(nproc)" --print-errorlogs >"$out/meson-test.log" 2>&1
else
  meson compile -C "$build" >"$out/compile.log" 2>&1 || { tail -40 "$out/compile.log"; exit 1; }
  meson test -C "$build" --num-processes "$(nproc)" --print-errorlogs >"$out/meson-test.log" 2>&1
fi
echo "meson test rc=$?"
grep -E "^(Ok|Fail|Skipped|Expected Fail|Unexpected Pass|Timeout):" "$out/meson-test.log"
cp "$build/meson-logs/testlog.junit.xml" "$out/meson-testlog.junit.xml" 2>/dev/null
"$build/qualify/fluxion-qualify" --junitxml "$out/qualify-junit.xml" --receipt "$out/qualify-receipt.json" >"$out/qualify.log" 2>&1
echo "fluxion-qualify rc=$?"; tail -1 "$out/qualify.log"
for tool in memcheck racecheck; do
  compute-sanitizer --tool "$tool" --error-exitcode 3 "$build/tests/device/device_tests" '[device]' \
    >"$out/sanitizer-$tool.log" 2>&1
  echo "compute-sanitizer $tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test cases" "$out/sanitizer-$tool.log" | tail -2
done
