#!/usr/bin/env python3
"""Side-by-side tables of fluxion's ensemble solvers and the peers from one
run's JSON lines (bench/run_solvers.sh writes them to solvers.jsonl).

Usage: python3 bench/solver_ratios.py OUTDIR      (every *.jsonl in it)

Ratio = peer median time / fluxion median time (above 1: fluxion is faster),
for the same model, dtype, N and mode, with the mean accepted steps and the
error each side reports (Lorenz: fluxion's against a host integration at
rtol 1e-12; Robertson: both against the shipped Radau reference).

The host table (stage host: bench/solvers_host.cpp and stiff_peers.py
host-rodas5) pairs fluxion with Boost.Odeint at the same model, N and thread
count, and with the peers' one-core host Rodas5 at one thread. Its errors:
Lorenz against Odeint's Fehlberg 7(8) at 1e-12 (max |y - ref| / max |ref|,
first 256 trajectories); Robertson, fluxion and Odeint against the 16 SciPy
Radau trajectories of tests/solve/data/robertson_t1e5.csv, the peer against
its shipped reference (256 trajectories; the first 16 are the same).
"""
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from json_lines import read_lines  # noqa: E402


def key(r):
    return (r.get("dtype"), r.get("N"), r.get("mode"))


HOST_PEERS = ("host-rodas5", "host-rosenbrock23")  # stiff_peers.py, one core


def is_host(r):
    return r["impl"].startswith(("fluxion-host-", "odeint-")) or r["impl"] in HOST_PEERS


def fmt(v, spec):
    return format(v if isinstance(v, (int, float)) else float("nan"), spec)


def ratio(peer, mine):
    pm, fm = (peer or {}).get("median_ms"), (mine or {}).get("median_ms")
    return pm / fm if pm and fm else None


def errs(r):
    e = (r or {}).get("max_rel_err_final") or []
    return ", ".join(fmt(v, ".1e") for v in e)


def host_tables(host, peers):
    """host: impl -> (model, N, threads) -> row; peers: impl -> N -> row (f64, final)."""
    print("\nHost CPU, f64, final state; ratio = peer ms / fluxion ms (above 1: fluxion is faster)")
    print("Lorenz (Model B), rtol = atol = 1e-6, t in [0, 1]: fluxion Tsit5 (SIMD lanes; scalar: one trajectory "
          "at a time) vs Boost.Odeint runge_kutta_dopri5")
    print(f"{'threads':>7} {'N':>8} {'fluxion ms':>11} {'scalar ms':>10} {'odeint ms':>10} {'ratio':>7} "
          f"{'scalar ratio':>12} {'steps':>6} {'odeint steps':>12} {'fluxion err':>12} {'odeint err':>11}")
    for k, f in sorted(host.get("fluxion-host-tsit5", {}).items()):
        if k[0] != "lorenz":
            continue
        sc = host.get("fluxion-host-tsit5-scalar", {}).get(k)
        od = host.get("odeint-dopri5", {}).get(k) or {}
        print(f"{k[2]:>7} {k[1]:>8} {fmt(f['median_ms'], '>11.2f')} {fmt((sc or {}).get('median_ms'), '>10.2f')} "
              f"{fmt(od.get('median_ms'), '>10.2f')} {fmt(ratio(od, f), '>7.2f')} {fmt(ratio(od, sc), '>12.2f')} "
              f"{fmt(f.get('steps_mean'), '>6.1f')} {fmt(od.get('steps_mean'), '>12.1f')} "
              f"{fmt(f.get('err'), '>12.2e')} {fmt(od.get('err'), '>11.2e')}")
    print("\nRobertson (Model C), rtol 1e-6, atol 1e-10, t in [0, 1e5]: vs Boost.Odeint rosenbrock4 and the peers' "
          "host Rodas5 / Rosenbrock23 (one core)")
    print(f"{'method':13} {'threads':>7} {'N':>7} {'fluxion ms':>11} {'odeint ms':>10} {'ratio':>7} {'peer ms':>9} "
          f"{'ratio':>7} {'steps':>6} {'odeint':>7} {'peer':>6} {'fluxion err (y1,y2,y3)':>24} "
          f"{'odeint err':>24} {'peer err':>24}")
    for mine, peer in (("fluxion-host-rodas5p", "host-rodas5"), ("fluxion-host-rosenbrock23", "host-rosenbrock23")):
        for k, f in sorted(host.get(mine, {}).items()):
            od = host.get("odeint-rosenbrock4", {}).get(k) or {}
            pr = peers.get(peer, {}).get(k[1]) if k[2] == 1 else None
            print(f"{mine[13:]:13} {k[2]:>7} {k[1]:>7} {fmt(f['median_ms'], '>11.2f')} "
                  f"{fmt(od.get('median_ms'), '>10.2f')} {fmt(ratio(od, f), '>7.2f')} "
                  f"{fmt((pr or {}).get('median_ms'), '>9.2f')} {fmt(ratio(pr, f), '>7.2f')} "
                  f"{fmt(f.get('steps_mean'), '>6.1f')} {fmt(od.get('steps_mean'), '>7.1f')} "
                  f"{fmt((pr or {}).get('steps_mean'), '>6.1f')} {errs(f):>24} {errs(od):>24} {errs(pr):>24}")


def matched_error(by, ladder):
    """Rodas5P at a ladder of tolerances against the peer's Rodas5 at rtol 1e-6 (f64, final state):
    the fastest fluxion point whose error is at most the peer's on every component."""
    for n in sorted(ladder):
        peer = by.get("cuda-rodas5", {}).get(("f64", n, "final"))
        base = by.get("fluxion-rodas5p", {}).get(("f64", n, "final"))
        if not peer or not peer.get("median_ms"):
            continue
        pe = peer.get("max_rel_err_final") or []
        print(f"\nRodas5P at matched error, f64, N = {n}: fluxion at rtol and atol scaled, the peer's Rodas5 at "
              f"rtol 1e-6 / atol 1e-10 ({peer['median_ms']:.3f} ms, err {errs(peer)})")
        print(f"{'scale':>6} {'rtol':>8} {'fluxion ms':>11} {'ratio':>7} {'steps':>6} {'fluxion err (y1,y2,y3)':>26} "
              f"{'<= peer':>8}")
        best = None
        for f in sorted(([base] if base else []) + ladder[n], key=lambda r: -r.get("tolerance_scale", 1)):
            fe = f.get("max_rel_err_final") or []
            ok = len(fe) == len(pe) == 3 and all(a <= b for a, b in zip(fe, pe))
            r = ratio(peer, f)
            print(f"{f.get('tolerance_scale', 1):>6.2f} {fmt(f.get('rtol', 1e-6), '>8.2g')} "
                  f"{f['median_ms']:>11.3f} {fmt(r, '>7.2f')} {fmt(f.get('steps_mean'), '>6.1f')} {errs(f):>26} "
                  f"{'yes' if ok else 'no':>8}")
            if ok and r and (best is None or r > best[0]):
                best = (r, f)
        if best:
            print(f"at equal or smaller error on every component: {best[0]:.2f}x the peer "
                  f"(rtol {best[1].get('rtol'):.2g}, {best[1]['median_ms']:.3f} ms)")
        else:
            print("no ladder point reaches the peer's error on every component")


def main(folder):
    rows = [r for r in read_lines(folder) if "impl" in r]
    by, grid, host, host_peers, ladder = {}, {}, {}, {}, {}
    for r in rows:
        if is_host(r):
            if r["impl"] in HOST_PEERS:
                if r.get("dtype") == "f64" and r.get("mode") == "final":
                    host_peers.setdefault(r["impl"], {})[r.get("N")] = r
            else:
                host.setdefault(r["impl"], {})[(r.get("model"), r.get("N"), r.get("threads"))] = r
        elif r.get("model") == "model_a_grid":
            grid.setdefault(r["impl"], {})[(r.get("dtype"), r.get("N"))] = r
        elif r.get("tolerance_scale", 1) != 1:  # fluxion-bench-stiff --ladder
            ladder.setdefault(r.get("N"), []).append(r)
        elif "mode" in r or "rtol" not in r:  # work-precision points (no mode) have their own file and plot
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
    matched_error(by, ladder)
    d = by.get("diffrax", {}).get(("f64", 1000000, "final"))
    f = by.get("fluxion-rodas5p", {}).get(("f64", 1000000, "final"))
    if d and f and d.get("median_ms"):
        print(f"\nRodas5P vs diffrax Kvaerno5, f64, 1e6: {d['median_ms'] / f['median_ms']:.0f}x "
              f"({f['median_ms']:.2f} ms vs {d['median_ms']:.0f} ms)")

    if grid:
        print("\nModel A over a parameter grid (128 states, 10 save times), Tsit5 rtol = atol = 1e-6, t in [0, 200]")
        print(f"{'fluxion':7} {'dtype':5} {'N':>8} {'fluxion ms':>11} {'diffrax ms':>11} {'ratio':>7} {'steps':>6} "
              f"{'peer steps':>10} {'fluxion err':>12} {'diffrax err':>12}")
        for impl, label, err in (("fluxion-tsit5", "thread", "fluxion_ref_err"),
                                 ("fluxion-tsit5-warp", "warp", "fluxion_warp_ref_err")):
            for k, f in sorted(grid.get(impl, {}).items()):
                d = grid.get("diffrax-tsit5-vmap", {}).get(k) or {}
                dm = d.get("median_ms")
                print(f"{label:7} {k[0]:5} {k[1]:>8} {f['median_ms']:>11.3f} {dm or float('nan'):>11.1f} "
                      f"{(dm / f['median_ms']) if dm else float('nan'):>7.1f} {f.get('steps_mean', float('nan')):>6.1f} "
                      f"{d.get('steps_mean', float('nan')):>10.1f} {d.get(err, float('nan')):>12.2e} "
                      f"{d.get('ref_err', float('nan')):>12.2e}")

    if host or host_peers:
        host_tables(host, host_peers)


if __name__ == "__main__":
    main(sys.argv[1])
