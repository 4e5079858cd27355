#!/usr/bin/env python3
"""Work-precision diagram of the ensemble solvers on the GPU (issue 15,
docs/guide/solving.md): Lorenz (Model B of BENCHMARKS.md), N trajectories with the
shared peers' inputs (ode_peers.py: seed 3, u0 in [0.5, 1.5]^3, (sigma, rho,
beta) in [5, 15] x [20, 30] x [2, 3]), t in [0, 1], float64, final states only.

    python3 bench/work_precision.py OUTDIR [--bin PATH] [--n N] [--plot-only]

fluxion: fluxion-bench-work-precision (bench/work_precision.cu) at rtol = atol
= 1e-3 .. 1e-12 with each explicit method. Peers: diffrax jit(vmap(
diffeqsolve)) with Tsit5 and with Dopri8 + PIDController at 1e-4, 1e-6, 1e-8,
1e-10 (timed like ode_peers.py: median of 3 after 2 warm-ups). Error: the
largest |y - y_ref| / max |y_ref| over the final states of the first 512
trajectories, y_ref from diffrax Dopri8 at rtol = atol = 1e-13 (float64), the
same reference for every method. Writes OUTDIR/work_precision.jsonl (one line
per point) and OUTDIR/work_precision.png (matplotlib; without it an SVG,
work_precision.svg). --plot-only redraws from an existing jsonl.
"""
import argparse
import json
import os
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("outdir")
ap.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "..", "build", "bench",
                                              "fluxion-bench-work-precision"))
ap.add_argument("--n", type=int, default=100000)
ap.add_argument("--plot-only", action="store_true")
args = ap.parse_args()
os.makedirs(args.outdir, exist_ok=True)
jsonl = os.path.join(args.outdir, "work_precision.jsonl")


def measure():
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    import numpy as np
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import diffrax

    n = args.n
    r = np.random.default_rng(3)   # ode_peers.inputs(n)
    u0 = np.stack([r.uniform(0.5, 1.5, n), r.uniform(0.5, 1.5, n), r.uniform(0.5, 1.5, n)], 1)
    p = np.stack([r.uniform(5, 15, n), r.uniform(20, 30, n), r.uniform(2, 3, n)], 1)
    inp = os.path.join(args.outdir, "lorenz_inputs.bin")
    np.concatenate([u0.T.ravel(), p.T.ravel()]).astype("<f8").tofile(inp)

    def vf(t, u, pp):
        return jnp.stack([pp[0] * (u[1] - u[0]), u[0] * (pp[1] - u[2]) - u[1], u[0] * u[1] - pp[2] * u[2]])

    def make(method, tol):
        def one(x, pp):
            sol = diffrax.diffeqsolve(diffrax.ODETerm(vf), method, 0.0, 1.0, 1e-3, x, args=pp,
                                      stepsize_controller=diffrax.PIDController(rtol=tol, atol=tol),
                                      saveat=diffrax.SaveAt(t1=True), max_steps=1000000)
            return sol.ys[-1], sol.stats["num_accepted_steps"]
        return jax.jit(jax.vmap(one))

    R = min(512, n)
    ref = np.asarray(make(diffrax.Dopri8(), 1e-13)(jnp.asarray(u0[:R]), jnp.asarray(p[:R]))[0])
    scale = np.abs(ref).max()

    def error(final):  # final: (R, 3)
        return float(np.abs(np.asarray(final, dtype=np.float64) - ref).max() / scale)

    lines = []
    hdr = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    # fluxion
    res = subprocess.run([args.bin, inp, str(n), args.outdir], capture_output=True, text=True)
    if res.returncode != 0:
        sys.stderr.write(res.stderr)
        raise SystemExit("fluxion-bench-work-precision failed")
    for line in res.stdout.splitlines():
        d = json.loads(line)
        fin = np.fromfile(d.pop("final_states"), dtype="<f8").reshape(3, R).T
        d["err"] = error(fin)
        d["gpu"] = hdr
        lines.append(d)
        print(json.dumps(d), flush=True)
    # peers
    du0, dp = jnp.asarray(u0), jnp.asarray(p)
    for name, method in (("diffrax-tsit5", diffrax.Tsit5()), ("diffrax-dopri8", diffrax.Dopri8())):
        for tol in (1e-4, 1e-6, 1e-8, 1e-10):
            f = make(method, tol)
            t0 = time.perf_counter()
            jax.block_until_ready(f(du0, dp))
            first = time.perf_counter() - t0
            jax.block_until_ready(f(du0, dp))
            ts = []
            for _ in range(3):
                t0 = time.perf_counter()
                y, steps = jax.block_until_ready(f(du0, dp))
                ts.append(time.perf_counter() - t0)
            d = {"impl": name, "dtype": "f64", "N": n, "rtol": tol, "median_ms": float(np.median(ts)) * 1e3,
                 "min_ms": float(np.min(ts)) * 1e3, "steps_mean": float(np.asarray(steps).mean()),
                 "first_call_s": first, "err": error(np.asarray(y)[:R]), "gpu": hdr}
            lines.append(d)
            print(json.dumps(d), flush=True)
    with open(jsonl, "w") as f:
        for d in lines:
            f.write(json.dumps(d) + "\n")


def plot():
    pts = [json.loads(l) for l in open(jsonl) if l.strip()]
    series = {}
    for d in pts:
        if d.get("failed", 0) == 0 and d["err"] > 0:
            series.setdefault(d["impl"], []).append((d["err"], d["median_ms"]))
    n = pts[0]["N"] if pts else 0
    title = f"Lorenz, {n} trajectories, t in [0, 1], float64, {pts[0].get('gpu', 'GPU') if pts else ''}"
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
        for name, xy in sorted(series.items()):
            xy.sort()
            ax.loglog([e for e, _ in xy], [t for _, t in xy], "o-" if name.startswith("fluxion") else "s--",
                      label=name)
        ax.set_xlabel("error of the final states (relative to the largest, vs Dopri8 at 1e-13)")
        ax.set_ylabel("time of the ensemble [ms]")
        ax.set_title(title, fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(args.outdir, "work_precision.png"))
        print("wrote", os.path.join(args.outdir, "work_precision.png"))
    except ImportError:
        import math
        W, H, m = 700, 450, 60
        allx = [math.log10(e) for xy in series.values() for e, _ in xy]
        ally = [math.log10(t) for xy in series.values() for _, t in xy]
        x0, x1, y0, y1 = min(allx), max(allx), min(ally), max(ally)
        X = lambda v: m + (math.log10(v) - x0) / max(x1 - x0, 1e-9) * (W - 2 * m)
        Y = lambda v: H - m - (math.log10(v) - y0) / max(y1 - y0, 1e-9) * (H - 2 * m)
        colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"]
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}"><rect width="100%" height="100%" fill="white"/>',
               f'<text x="{m}" y="20" font-size="12">{title}</text>']
        for c, (name, xy) in enumerate(sorted(series.items())):
            xy.sort()
            path = " ".join(f"{X(e):.1f},{Y(t):.1f}" for e, t in xy)
            out.append(f'<polyline points="{path}" fill="none" stroke="{colors[c % 5]}"/>')
            out.append(f'<text x="{W - m - 120}" y="{40 + 14 * c}" font-size="11" fill="{colors[c % 5]}">{name}</text>')
        out.append("</svg>")
        open(os.path.join(args.outdir, "work_precision.svg"), "w").write("\n".join(out))
        print("matplotlib not found: wrote work_precision.svg")


if not args.plot_only:
    measure()
plot()
