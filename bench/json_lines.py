"""The JSON lines of a results folder (every *.jsonl in it, files in name
order), for bench/ratios.py and bench/plot_throughput.py. Comment lines and
lines that do not parse are skipped."""
import glob
import json
import os


def read_lines(folder):
    for path in sorted(glob.glob(os.path.join(folder, "*.jsonl"))):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    try:
                        yield json.loads(line)
                    except json.JSONDecodeError:
                        pass
