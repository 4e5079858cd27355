#!/usr/bin/env python3
"""Prints fluxion's public headers, one per line, relative to the include dir
given as the only argument (e.g. fluxion/config/version.hpp), sorted.

Private headers (under a detail/ folder) are listed too, as every header
opens with what it is for and compiles alone, but for the Python binding
unit's (python/detail/): fragments of that one unit, which its check
compiles whole (module_header.hpp needs the module's macro). The headers
that need nvcc (any cuda.hpp, the umbrella fluxion/cuda.hpp included, any
cuda_entries.hpp and anything under a cuda/ folder: exec/cuda/, infer/cuda/)
are listed alone with --cuda (they compile as .cu translation units). Headers that include pybind11 (the
Python binding unit's) are listed alone with --pybind11 (they compile with
the Python and pybind11 headers). The MPI layer's (fluxion/mpi.hpp and
fluxion/mpi/) are listed alone with --mpi (they compile with the MPI
headers), but those that need nvcc too (mpi/cuda.hpp: tests/mpi checks
it). Run by Meson at configure time: a new header is picked up on the
next (re)configure, which scripts/test.sh always does.
"""
import os
import sys


def uses_pybind11(path):
    with open(path, encoding="utf-8") as f:
        return "#include <pybind11/" in f.read()


def needs_nvcc(rel):
    """rel: the header's path from the include dir, with '/'."""
    return ("cuda" in rel.split("/")[:-1]
            or os.path.basename(rel) in ("cuda.hpp", "cuda_entries.hpp"))


def uses_mpi(rel):
    return rel == "fluxion/mpi.hpp" or rel.startswith("fluxion/mpi/")


def main(argv):
    options = {a for a in argv[1:] if a.startswith("--")}
    unknown = options - {"--pybind11", "--cuda", "--mpi"}
    if unknown or len(options) > 1:
        sys.exit(f"gen.py: at most one of --pybind11, --cuda, --mpi (got {' '.join(sorted(options))})")
    pybind11 = "--pybind11" in options
    cuda = "--cuda" in options
    mpi = "--mpi" in options
    include = [a for a in argv[1:] if not a.startswith("--")][0]
    top = os.path.join(include, "fluxion")
    found = []
    for dirpath, dirnames, filenames in os.walk(top):
        rel = os.path.relpath(dirpath, include).replace(os.sep, "/")
        if rel == "fluxion/python":
            dirnames[:] = [d for d in dirnames if d != "detail"]
        for f in filenames:
            if not f.endswith((".hpp", ".h")):
                continue
            header = f"{rel}/{f}"
            if uses_mpi(header):
                if mpi and not needs_nvcc(header):
                    found.append(header)
            elif needs_nvcc(header):
                if cuda:
                    found.append(header)
            elif not cuda and not mpi and uses_pybind11(os.path.join(dirpath, f)) == pybind11:
                found.append(header)
    for h in sorted(found):
        print(h)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
