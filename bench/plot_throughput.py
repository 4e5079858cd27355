#!/usr/bin/env python3
"""Throughput of Model A's right-hand side against batch size, from JSON lines.

    python3 bench/plot_throughput.py RESULTS_DIR [RESULTS_DIR ...] [OUT.png]

Reads every *.jsonl in the RESULTS_DIRs (e.g. one GPU run and one host run):
fluxion's lines ({"bench": "rhs",
"target": "device"|"host", "dtype", "B", "ms" or "ns_per_instance"}) and the
peers' lines from shared/peers/rhs_peers.py ({"impl", "dtype", "B",
"median_ms"}). Plots instances per second against B (log-log), one panel for
the GPU and one for the host CPU, double solid and float dashed. Default
output: the first RESULTS_DIR/throughput.png. Needs matplotlib (python3-matplotlib).
"""
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from json_lines import read_lines  # noqa: E402  (bench/json_lines.py)

PEER_NAMES = {"cupy": "hand-written CUDA", "jax": "JAX jit(vmap)", "torch-compile": "torch.compile",
              "torch": "PyTorch eager"}


def sweep_size(B):
    """The plotted batch sizes: powers of two from 2^10 on."""
    return B >= 1024 and B & (B - 1) == 0


def series(folders):
    """(name, dtype) -> {B: instances per second}, the median where a B was measured more than once."""
    device, host = defaultdict(lambda: defaultdict(list)), defaultdict(lambda: defaultdict(list))
    for r in (r for folder in folders for r in read_lines(folder)):
        if r.get("bench") == "rhs" and "layout" in r:
            B, dt = int(r["B"]), r["dtype"]
            per_s = 1e9 / float(r["ns_per_instance"])
            if r.get("target") == "device":
                device[("fluxion", dt)][B].append(per_s)
            elif r.get("target") == "host":
                # The sweep's sizes; the in-cache lines (B = 256, 264) are in the tables.
                if not sweep_size(B):
                    continue
                threads = int(r.get("threads", 1))
                host[(f"fluxion {r['layout'].upper()}, {threads} thread{'s' if threads > 1 else ''}", dt)][B].append(per_s)
        elif r.get("impl") in PEER_NAMES and "median_ms" in r and "B" in r:
            B, dt = int(r["B"]), r["dtype"]
            device[(PEER_NAMES[r["impl"]], dt)][B].append(B / (float(r["median_ms"]) * 1e-3))
        elif str(r.get("impl", "")).startswith("host-hand"):
            B = int(r["B"])
            if not sweep_size(B):
                continue
            name = "hand-written C++ " + r["impl"].split("-")[-1].upper()
            host[(name, "f64")][B].append(1e9 / float(r["f64_ns_per_instance"]))
            host[(name, "f32")][B].append(1e9 / float(r["f32_ns_per_instance"]))

    def medians(data, min_points=1):
        return {key: {B: sorted(v)[len(v) // 2] for B, v in pts.items()}
                for key, pts in data.items() if len(pts) >= min_points}

    # Host series of one point (a layout measured at one sweep size only) are left out.
    return medians(device), medians(host, min_points=2)


def panel(ax, data, title):
    names = sorted({n for n, _ in data})
    colors = {n: f"C{i}" for i, n in enumerate(names)}
    for (name, dt), pts in sorted(data.items()):
        xs = sorted(pts)
        ax.plot(xs, [pts[b] for b in xs], marker="o", ms=3, color=colors[name],
                linestyle="-" if dt == "f64" else "--", label=f"{name} ({dt})")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("batch size B (instances)")
    ax.set_ylabel("right-hand sides per second")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    args = sys.argv[1:]
    out = args.pop() if args[-1].endswith(".png") else os.path.join(args[0], "throughput.png")
    device, host = series(args)
    if not device and not host:
        print(f"plot_throughput: no rhs lines in {' '.join(args)}", file=sys.stderr)
        return 1
    panels = [(d, t) for d, t in ((device, "Model A rhs on the GPU"), (host, "Model A rhs on the host CPU")) if d]
    fig, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 4.8), squeeze=False)
    for ax, (d, t) in zip(axes[0], panels):
        panel(ax, d, t)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
