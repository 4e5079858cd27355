#!/usr/bin/env python3
"""Prints fluxion's public headers, one per line, relative to the include dir
given as the only argument (e.g. fluxion/config/version.hpp), sorted.

Skipped: anything under a detail/ folder (private), any cuda.hpp and anything
under exec/cuda/ (those need nvcc). Run by Meson at configure time: a new header
is picked up on the next (re)configure, which scripts/test.sh always does.
"""
import os
import sys


def main(argv):
    include = argv[1]
    top = os.path.join(include, "fluxion")
    found = []
    for dirpath, dirnames, filenames in os.walk(top):
        rel = os.path.relpath(dirpath, include).replace(os.sep, "/")
        dirnames[:] = [d for d in dirnames
                       if d != "detail" and f"{rel}/{d}" != "fluxion/exec/cuda"]
        for f in filenames:
            if f.endswith((".hpp", ".h")) and f != "cuda.hpp":
                found.append(f"{rel}/{f}")
    for h in sorted(found):
        print(h)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
