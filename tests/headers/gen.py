#!/usr/bin/env python3
"""Prints fluxion's public headers, one per line, relative to the include dir
given as the only argument (e.g. fluxion/config/version.hpp), sorted.

Skipped: anything under a detail/ folder (private), any cuda.hpp, any
cuda_entries.hpp and anything under exec/cuda/ (those need nvcc). Headers that
include pybind11 (the Python binding unit's) are listed alone with --pybind11
(they compile with the Python and pybind11 headers). Run by Meson at configure
time: a new header is picked up on the next (re)configure, which scripts/test.sh
always does.
"""
import os
import sys


def uses_pybind11(path):
    with open(path, encoding="utf-8") as f:
        return "#include <pybind11/" in f.read()


def main(argv):
    pybind11 = "--pybind11" in argv
    argv = [a for a in argv if a != "--pybind11"]
    include = argv[1]
    top = os.path.join(include, "fluxion")
    found = []
    for dirpath, dirnames, filenames in os.walk(top):
        rel = os.path.relpath(dirpath, include).replace(os.sep, "/")
        dirnames[:] = [d for d in dirnames
                       if d != "detail" and f"{rel}/{d}" != "fluxion/exec/cuda"]
        for f in filenames:
            if f.endswith((".hpp", ".h")) and f not in ("cuda.hpp", "cuda_entries.hpp"):
                if uses_pybind11(os.path.join(dirpath, f)) == pybind11:
                    found.append(f"{rel}/{f}")
    for h in sorted(found):
        print(h)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
