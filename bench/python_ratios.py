#!/usr/bin/env python3
"""The table of docs/python.md from one run of bench/run_python.sh: each
Python call beside the C++ launcher's figure for the same work in the same
run (CUDA events around one call, medians), their ratio, and the difference
in microseconds (at B = N = 1024 the GPU's work is a few microseconds, so
the difference is what a call from Python adds).

    python3 bench/python_ratios.py OUT/python.jsonl
"""
import json
import sys


def rows(path):
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                yield json.loads(line)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    cpp, py = {}, {}
    for r in rows(sys.argv[1]):
        if r.get("bench") == "rhs" and r.get("target") == "device":
            cpp[("rhs", r["dtype"], r["B"])] = r["ms"]
        elif r.get("impl") == "fluxion-tsit5":
            cpp[("integrate", r["dtype"], r["N"])] = r["median_ms"]
        elif r.get("impl") == "fluxion" and r.get("variant") == "full":
            policy = {"value_and_grad": "thread", "value_and_grad_adjoint": "adjoint"}.get(r["what"])
            if policy:
                cpp[("log-density " + policy, r["dtype"], r["N"])] = r["median_ms"]
        elif r.get("impl") == "fluxion-python":
            if r["bench"] == "gpu-rhs":
                py[("rhs", r["dtype"], r["B"], r["result"])] = r["ms"]
            elif r["bench"] == "integrate":
                py[("integrate", r["dtype"], r["N"], "")] = r["median_ms"]
            elif r["bench"] == "log-density":
                py[("log-density " + r["policy"], r["dtype"], r["N"], "")] = r["median_ms"]
    names = {"rhs": "Model A `rhs`", "integrate": "Lorenz `integrate`, Tsit5",
             "log-density thread": "SEIR log-density + gradient, forward sensitivities",
             "log-density adjoint": "SEIR log-density + gradient, adjoint"}
    print("| what | B or N | dtype | Python (ms) | C++ (ms) | Python / C++ | difference (µs) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for (what, dtype, n, result), ms in sorted(py.items(), key=lambda kv: (list(names).index(kv[0][0]), -kv[0][2],
                                                                           kv[0][1] == "f32", kv[0][3])):
        ref = cpp.get((what, dtype, n))
        if ref is None:
            continue
        label = names[what] + (", " + ("`out=`" if result == "out=" else result) if result else "")
        ratio = ms / ref
        print("| %s | %d | %s | %.3f | %.3f | %s | %+.0f |" % (label, n, dtype, ms, ref,
                                                             ("**%.2f**" if ratio > 1.05 else "%.2f") % ratio,
                                                             (ms - ref) * 1e3))


if __name__ == "__main__":
    main()
