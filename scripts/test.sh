#!/usr/bin/env bash
# Builds fluxion into build/ and runs every test suite, then prints a last line
# "N passed, N failed, N skipped". Installs missing build tools first (see
# scripts/install-deps.sh). Extra arguments go to `meson test`, e.g.
#   bash scripts/test.sh --suite symbolic
# Exits non-zero when the build or any test fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh

# nvcc is optional; find the toolkit in its usual place even when not on PATH.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="$PATH:/usr/local/cuda/bin"
fi

# Reconfigure an existing build dir (this also picks up new public headers for
# the 'headers' suite); set up a fresh one otherwise.
if [ -f build/meson-private/coredata.dat ]; then
  meson setup --reconfigure build || meson setup --wipe build
else
  meson setup build
fi

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
python3 - "$log" "$rc" <<'PY'
import json, sys
log, rc = sys.argv[1], int(sys.argv[2])
passed = failed = skipped = 0
bad = []
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
            bad.append(f"  {r}: {t.get('name')}")
if bad:
    print("failed tests:")
    print("\n".join(bad))
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed or rc else 0)
PY
