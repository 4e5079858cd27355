#!/usr/bin/env python3
"""Side-by-side tables of fluxion's ensemble solvers and the peers from one
run's JSON lines (bench/run_solvers.sh writes them to solvers.jsonl).

Usage: python3 bench/solver_ratios.py OUTDIR      (every *.jsonl in it)

Ratio = peer median time / fluxion median time (above 1: fluxion is faster),
for the same model, dtype, N and mode, with the mean accepted steps and the
error each side reports (Lorenz: fluxion's against a host integration at
rtol 1e-12; Robertson: both against the shipped Radau reference).
"""
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from json_lines import read_lines  # noqa: E402


def key(r):
    return (r.get("dtype"), r.get("N"), r.get("mode"))


def main(folder):
    rows = [r for r in read_lines(folder) if "impl" in r]
    by, grid = {}, {}
    for r in rows:
        if r.get("model") == "model_a_grid":
            grid.setdefault(r["impl"], {})[(r.get("dtype"), r.get("N"))] = r
        elif "rtol" not in r:  # work-precision points have their own file and plot
            by.setdefault(r["impl"], {})[key(r)] = r
    fx_lorenz = by.get("fluxion-tsit5", {})
    print("Lorenz (Model B), adaptive Tsit5, rtol = atol = 1e-6, t in [0, 1], final state")
    print(f"{'dtype':5} {'N':>8} {'fluxion ms':>11} {'hand CUDA ms':>13} {'ratio':>7} {'diffrax ms':>11} {'ratio':>8} {'steps':>6} {'fluxion err':>12}")
    for k, f in sorted(fx_lorenz.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        hand = by.get("cuda-tsit5-adaptive", {}).get(k)
        dfx = by.get("diffrax", {}).get(k)
        def ms(r):
            return r["median_ms"] if r and r.get("median_ms") else None
        hr = ms(hand) / f["median_ms"] if ms(hand) else None
        dr = ms(dfx) / f["median_ms"] if ms(dfx) else None
        print(f"{k[0]:5} {k[1]:>8} {f['median_ms']:>11.3f} {ms(hand) or float('nan'):>13.3f} "
              f"{hr or float('nan'):>7.2f} {ms(dfx) or float('nan'):>11.1f} {dr or float('nan'):>8.1f} "
              f"{f.get('steps_mean', float('nan')):>6.1f} {f.get('ref_err', float('nan')):>12.2e}")
    print()
    print("Robertson (Model C), f64 rtol 1e-6 / atol 1e-10, f32 1e-4 / 1e-7, t in [0, 1e5]")
    print(f"{'method':13} {'dtype':5} {'N':>8} {'mode':7} {'fluxion ms':>11} {'peer ms':>9} {'ratio':>7} {'steps':>6} {'peer steps':>10} {'fluxion err (y1,y2,y3)':>26} {'peer err':>26}")
    pairs = [("fluxion-rodas5p", "cuda-rodas5"), ("fluxion-rosenbrock23", "cuda-rosenbrock23")]
    for mine, peer in pairs:
        for k, f in sorted(by.get(mine, {}).items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2])):
            p = by.get(peer, {}).get(k)
            pm = p.get("median_ms") if p else None
            ratio = pm / f["median_ms"] if pm else float("nan")
            fe = ", ".join(f"{e:.1e}" for e in f.get("max_rel_err_final", []))
            pe = ", ".join(f"{e:.1e}" for e in (p.get("max_rel_err_final") or [])) if p else ""
            print(f"{mine[8:]:13} {k[0]:5} {k[1]:>8} {k[2]:7} {f['median_ms']:>11.3f} {pm or float('nan'):>9.3f} "
                  f"{ratio:>7.2f} {f.get('steps_mean', float('nan')):>6.1f} "
                  f"{(p or {}).get('steps_mean', float('nan')):>10.1f} {fe:>26} {pe:>26}")
    d = by.get("diffrax", {}).get(("f64", 1000000, "final"))
    f = by.get("fluxion-rodas5p", {}).get(("f64", 1000000, "final"))
    if d and f and d.get("median_ms"):
        print(f"\nRodas5P vs diffrax Kvaerno5, f64, 1e6: {d['median_ms'] / f['median_ms']:.0f}x "
              f"({f['median_ms']:.2f} ms vs {d['median_ms']:.0f} ms)")

    if grid:
        print("\nModel A over a parameter grid (128 states, 10 save times), Tsit5 rtol = atol = 1e-6, t in [0, 200]")
        print(f"{'dtype':5} {'N':>8} {'fluxion ms':>11} {'diffrax ms':>11} {'ratio':>7} {'steps':>6} {'peer steps':>10} "
              f"{'fluxion err':>12} {'diffrax err':>12}")
        for k, f in sorted(grid.get("fluxion-tsit5", {}).items()):
            d = grid.get("diffrax-tsit5-vmap", {}).get(k) or {}
            dm = d.get("median_ms")
            print(f"{k[0]:5} {k[1]:>8} {f['median_ms']:>11.3f} {dm or float('nan'):>11.1f} "
                  f"{(dm / f['median_ms']) if dm else float('nan'):>7.1f} {f.get('steps_mean', float('nan')):>6.1f} "
                  f"{d.get('steps_mean', float('nan')):>10.1f} {d.get('fluxion_ref_err', float('nan')):>12.2e} "
                  f"{d.get('ref_err', float('nan')):>12.2e}")


if __name__ == "__main__":
    main(sys.argv[1])
