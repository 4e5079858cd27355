"""Where a kernel's warps wait, from Nsight Compute's source counters.

On the GPU machine (the kernel built with -lineinfo for the by-line view):
  ncu --section SourceCounters --section WarpStateStats --import-source yes \
      -k regex:adjoint_terms -c 1 -o rep ./fluxion-bench-seir-log-density OUT 100000
  ncu -i rep.ncu-rep --page source --csv --print-source sass > sass.csv
  ncu -i rep.ncu-rep --page source --csv --print-source cuda,sass > both.csv
then anywhere:
  python3 bench/ncu_source.py sass.csv [both.csv] [--reason stall_long_sb] [--top 25] [--context 6]
prints the stall reasons' shares, the source lines (from both.csv) and the
SASS instructions with the most samples of the reason (all samples by
default), each instruction with the ones before it (the load a stalled
instruction waits for is usually among them). How the stall figures of the
SEIR adjoint's kernels (docs/guide/fitting.md) were found.
"""
import argparse
import collections
import csv


def sass_rows(path):
    header, rows = None, []
    for r in csv.reader(open(path, errors="replace")):
        if r and r[0] == "Address":
            header = r
        elif r and r[0].startswith("0x") and header:
            rows.append(r)
    return header, rows


def address_lines(path):
    """Address -> (file, line, source) from the cuda,sass view."""
    where, f, line, src = {}, "?", "?", ""
    for r in csv.reader(open(path, errors="replace")):
        if not r:
            continue
        if r[0] == "File Path":
            f = r[1].split("/include/")[-1]
            continue
        if r[0] in ("Function Name", "Line No"):
            continue
        if r[0]:
            line, src = r[0], r[1].strip()[:90]
        if len(r) > 2 and r[2].startswith("0x"):
            where[r[2]] = (f, line, src)
    return where


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sass")
    ap.add_argument("both", nargs="?")
    ap.add_argument("--reason", default="Warp Stall Sampling (All Samples)")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--context", type=int, default=6)
    a = ap.parse_args()
    h, rows = sass_rows(a.sass)
    num = lambda r, i: float(r[i]) if r[i] not in ("", "-") else 0.0
    reasons = [i for i, c in enumerate(h) if c.startswith("stall_") and "Not Issued" not in c]
    share = collections.Counter()
    for r in rows:
        for i in reasons:
            share[h[i][6:]] += num(r, i)
    total = sum(share.values()) or 1
    print("stall reasons:", " ".join(f"{k}={100 * v / total:.1f}%" for k, v in share.most_common(8)))
    ci = h.index(a.reason)
    samples = [num(r, ci) for r in rows]
    s = sum(samples) or 1
    print(f"{a.reason}: {s:.0f} samples over {len(rows)} instructions")
    if a.both:
        where = address_lines(a.both)
        by_line = collections.Counter()
        for r, v in zip(rows, samples):
            by_line[where.get(r[0], ("?", "?", ""))] += v
        for (f, line, src), v in by_line.most_common(a.top):
            print(f"  {100 * v / s:5.1f}%  {f}:{line}  {src}")
    ex = h.index("Instructions Executed")
    for i in sorted(sorted(range(len(rows)), key=lambda i: -samples[i])[: min(a.top, 8)]):
        print("  ----")
        for j in range(max(0, i - a.context), i + 1):
            r = rows[j]
            print(f"  {'>>' if j == i else '  '} {r[0][-6:]} {samples[j]:8.0f} executed {r[ex]:>9}  {r[1].strip()[:80]}")


if __name__ == "__main__":
    main()
