#!/usr/bin/env python3
"""The device gate from Python: qualifies a build's Python modules on a GPU.

    python3 qualify/python_gate.py --modules BUILD/tests/python --junitxml J.xml --receipt R.json

Before any test it checks, each with its own message: that CuPy imports,
that CUDA initializes through it (runtime and driver versions), that a
device exists, and that a real device operation (an allocation, a kernel
and a copy back) gives the right answer. Then it runs the python suite
(tests/python) and requires executed cases with no failure, no error and no
skip: a skipped case (no GPU, no CuPy, a module built without CUDA) is a
failure here, never a pass. It writes the suite's JUnit file and a receipt:
Python, NumPy, CuPy, the binding library, the CUDA runtime and driver, the
device, the source hash, the exact command, the counts and the verdict.
Exit status 0 only when qualified."""
import argparse
import json
import os
import platform
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def not_qualified(receipt, path, why):
    receipt["qualified"] = False
    receipt["reason"] = why
    if path:
        with open(path, "w") as f:
            json.dump(receipt, f, indent=2)
    print("not qualified: " + why)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--modules", required=True, help="the folder of the built python test modules")
    ap.add_argument("--junitxml", required=True)
    ap.add_argument("--receipt", required=True)
    ap.add_argument("--tests", default=os.path.join(ROOT, "tests", "python"))
    args = ap.parse_args()

    import numpy
    receipt = {
        "gate": "fluxion python device gate",
        "command": " ".join([sys.executable] + sys.argv),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "source_hash": subprocess.run([sys.executable, os.path.join(HERE, "source_hash.py"), ROOT],
                                      capture_output=True, text=True).stdout.strip(),
    }
    try:
        import cupy
    except Exception as e:
        not_qualified(receipt, args.receipt, "CuPy is missing or does not import (%s: %s)" % (type(e).__name__, e))
    receipt["cupy"] = cupy.__version__
    try:
        receipt["cuda_runtime"] = cupy.cuda.runtime.runtimeGetVersion()
        receipt["cuda_driver"] = cupy.cuda.runtime.driverGetVersion()
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:
        not_qualified(receipt, args.receipt, "CUDA does not initialize through CuPy (%s: %s)" % (type(e).__name__, e))
    if count < 1:
        not_qualified(receipt, args.receipt, "no CUDA device")
    try:
        props = cupy.cuda.runtime.getDeviceProperties(0)
        receipt["device"] = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
        receipt["compute_capability"] = "%d.%d" % (props["major"], props["minor"])
        a = cupy.arange(1 << 20, dtype=cupy.float64)
        total = float((a * 2.0).sum())
        if total != float((1 << 20) * ((1 << 20) - 1)):
            raise RuntimeError("a sum on the device gave %r" % total)
    except Exception as e:
        not_qualified(receipt, args.receipt, "a device operation failed (%s: %s)" % (type(e).__name__, e))

    sys.path.insert(0, args.modules)
    try:
        import fixture_py
    except Exception as e:
        not_qualified(receipt, args.receipt, "the test module does not import from %s (%s)" % (args.modules, e))
    receipt["binding"] = fixture_py.binding
    receipt["fluxion"] = fixture_py.fluxion_version
    if not fixture_py.has_cuda:
        not_qualified(receipt, args.receipt, "the test module was built without CUDA")

    env = dict(os.environ, FLUXION_PYTHON_PATH=os.pathsep.join(
        [args.modules] + [p for p in os.environ.get("FLUXION_PYTHON_PATH", "").split(os.pathsep) if p]),
        PYTHONDONTWRITEBYTECODE="1")
    cmd = [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "--junitxml", args.junitxml,
           args.tests]
    receipt["pytest_command"] = " ".join(cmd)
    run = subprocess.run(cmd, env=env)
    try:
        suites = ET.parse(args.junitxml).getroot()
    except Exception as e:
        not_qualified(receipt, args.receipt, "pytest wrote no readable JUnit file (%s)" % e)
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for s in ([suites] if suites.tag == "testsuite" else suites.findall("testsuite")):
        for k in counts:
            counts[k] += int(s.get(k, 0))
    receipt.update(counts)
    executed = counts["tests"] - counts["skipped"]
    if counts["failures"] or counts["errors"]:
        not_qualified(receipt, args.receipt, "%d failed and %d errors in the python suite" % (counts["failures"], counts["errors"]))
    if counts["skipped"]:
        not_qualified(receipt, args.receipt, "%d cases skipped: the gate allows none" % counts["skipped"])
    if executed == 0 or run.returncode != 0:
        not_qualified(receipt, args.receipt, "no case executed (pytest exit status %d)" % run.returncode)
    receipt["qualified"] = True
    with open(args.receipt, "w") as f:
        json.dump(receipt, f, indent=2)
    print("qualified: %d python cases on %s, none skipped" % (executed, receipt["device"]))


if __name__ == "__main__":
    main()
