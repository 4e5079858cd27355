#!/usr/bin/env python3
"""The python device gate's refusal where it cannot qualify (this machine, CI):
qualify/python_gate.py must exit non-zero, print "not qualified: <why>" with
the reason of this environment, and write a receipt that says so. Where CuPy
and a GPU are usable the gate itself is run by scripts/qualify-python.sh, so
this check skips (exit status 77).

    check_gate.py GATE MODULES_DIR WORK_DIR"""
import json
import os
import subprocess
import sys

gate, modules, work = sys.argv[1:4]
try:
    import cupy
    usable = cupy.cuda.runtime.getDeviceCount() > 0
except Exception:
    cupy, usable = None, False
if usable:
    print("CuPy and a GPU are usable: scripts/qualify-python.sh runs the gate itself")
    sys.exit(77)
receipt = os.path.join(work, "python-gate-receipt.json")
run = subprocess.run([sys.executable, gate, "--modules", modules, "--junitxml", os.path.join(work, "gate.xml"),
                      "--receipt", receipt], capture_output=True, text=True)
print(run.stdout, run.stderr)
expected = (("not qualified: CuPy is missing",) if cupy is None else
            ("not qualified: CUDA does not initialize", "not qualified: no CUDA device"))
assert run.returncode != 0, "the gate qualified without a GPU"
assert run.stdout.startswith(expected), "expected %r, got %r" % (expected, run.stdout)
r = json.load(open(receipt))
assert r["qualified"] is False and r["reason"] and r["python"] and r["numpy"] and r["source_hash"], r
print("ok: " + run.stdout.strip())
