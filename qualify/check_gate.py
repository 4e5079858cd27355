#!/usr/bin/env python3
"""Checks fluxion-qualify's gate: it never reports qualification without a
device, and on a machine with one it qualifies.

Usage: check_gate.py QUALIFY_EXE WORKDIR
"""
import json
import pathlib
import subprocess
import sys

exe, work = sys.argv[1], pathlib.Path(sys.argv[2])
receipt = work / 'gate-receipt.json'
junit = work / 'gate-junit.xml'
for f in (receipt, junit):
    if f.exists():
        f.unlink()
run = subprocess.run([exe, '--junitxml', str(junit), '--receipt', str(receipt)],
                     capture_output=True, text=True, timeout=560)
lines = [l for l in run.stdout.splitlines() if l.startswith(('qualified', 'not qualified'))]
print(run.stdout[-3000:])
data = json.loads(receipt.read_text())
if run.returncode == 0:
    ok = (data['outcome'] == 'qualified' and data['cases']['executed'] >= 18 and data['cases']['failed'] == 0
          and data['cases']['skipped'] == 0 and lines and lines[-1].startswith('qualified'))
    print('gate: qualified on', data['device']['name'], '->', 'consistent' if ok else 'INCONSISTENT')
else:
    ok = (data['outcome'] == 'not qualified' and data['reason'] != '' and lines
          and lines[-1].startswith('not qualified: ') and junit.exists())
    print('gate: not qualified (' + data['reason'] + ') ->', 'consistent' if ok else 'INCONSISTENT')
sys.exit(0 if ok else 1)
