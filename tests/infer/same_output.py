#!/usr/bin/env python3
"""Runs each program given and fails unless all print the same output."""
import subprocess
import sys

outputs = [subprocess.run([p], capture_output=True, text=True, check=True).stdout for p in sys.argv[1:]]
for p, o in zip(sys.argv[1:], outputs):
    print(f"{p}:\n{o}")
sys.exit(0 if all(o == outputs[0] for o in outputs) else 1)
