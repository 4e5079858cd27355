#!/usr/bin/env python3
"""Print the basenames (without .cpp) of the .cpp files in a folder, sorted.

Meson cannot glob; suites call this at configure time so that a new test file
is picked up by the next (re)configure, which scripts/test.sh always does.
"""
import pathlib
import sys

folder = pathlib.Path(sys.argv[1])
for path in sorted(folder.glob('*.cpp')):
    print(path.stem)
