#!/usr/bin/env python3
"""Ratios of bench/run_inference.sh's JSON lines: for each variant, dtype and
measurement (value, value_and_grad, value_and_grad_lanes: the gradient a
lane a sensitivity column, value_and_grad_adjoint: by the discrete adjoint,
value_and_grad_adjoint_by_steps: the same with its backward pass in order of
the trajectories' steps; all against the peers' value_and_grad), the peers' median time over fluxion's,
and the first trajectory's value and gradient side by side (relative
difference) as a check that both computed the same log-density.

Lines tagged "pair" (several alternating runs in one call) also give each
pair's ratios.

Usage: python3 bench/inference_ratios.py OUTDIR/inference.jsonl
"""
import json
import sys

rows = []
for line in open(sys.argv[1]):
    line = line.strip()
    if line and not line.startswith("#"):
        rows.append(json.loads(line))

# Lines tagged with "pair" (fluxion's bench and a peer run one after the
# other, several times in one call): each pair's ratios, then the rest as one run.
pairs = sorted({r["pair"] for r in rows if "pair" in r})
for k in pairs:
    for r in rows:
        if r.get("pair") != k or r.get("impl") != "fluxion" or not r["what"].startswith("value_and_grad"):
            continue
        for p in rows:
            if (p.get("pair") == k and p.get("impl") not in (None, "fluxion") and p.get("what") == "value_and_grad"
                    and (p.get("variant"), p.get("dtype")) == (r["variant"], r["dtype"]) and "median_ms" in p):
                print(f"pair {k}: {r['variant']} {r['dtype']} {r['what']} {r['median_ms']:.3f} ms, {p['impl']} "
                      f"{p['median_ms']:.2f} ms: {p['median_ms'] / r['median_ms']:.1f}x")

fl = {(r["variant"], r["dtype"], r["what"]): r for r in rows if r.get("impl") == "fluxion"}
print(f"{'variant':8} {'dtype':5} {'what':31} {'fluxion ms':>11} {'jax ms':>10} {'jax/fx':>8} {'torch ms':>10} "
      f"{'torch/fx':>9} {'value rel.diff (jax)':>21} {'grad max rel.diff (jax)':>24}")
for key in sorted(fl):
    f = fl[key]
    line = f"{key[0]:8} {key[1]:5} {key[2]:31} {f['median_ms']:11.3f}"
    jdiff = gdiff = ""
    for impl in ("jax", "torch"):
        # fluxion's lane-a-column and adjoint gradients against the peers' one gradient
        want = key[:2] + ("value_and_grad" if key[2].startswith("value_and_grad") else key[2],)
        p = [r for r in rows if r.get("impl") == impl and (r.get("variant"), r.get("dtype"), r.get("what")) == want]
        if p and "median_ms" in p[0]:
            line += f" {p[0]['median_ms']:10.2f} {p[0]['median_ms'] / f['median_ms']:8.1f}x" + (" " if impl == "jax" else "")
            if impl == "jax":
                jdiff = f"{abs(p[0]['value0'] - f['value0']) / max(1.0, abs(f['value0'])):.1e}"
                if "grad0" in p[0] and "grad0" in f:
                    scale = max(1.0, max(abs(v) for v in f["grad0"]))
                    gdiff = f"{max(abs(a - b) for a, b in zip(p[0]['grad0'], f['grad0'])) / scale:.1e}"
        else:
            line += f" {'-':>10} {'-':>8} " + (" " if impl == "jax" else "")
    print(line + f" {jdiff:>21} {gdiff:>24}")
for r in rows:
    if r.get("impl") == "fluxion-host" and "model" in r:
        print(f"host, one thread, {r['model']} ({r['columns']} columns), N = {r['N']}: forward sensitivities "
              f"{r['grad_over_solve']:.1f}x one solve, the discrete adjoint {r['adjoint_over_solve']:.1f}x "
              f"(gradients differ by {r['max_rel_diff']:.1e} of the largest entry)")
    elif r.get("impl") == "fluxion-host":
        print(f"host, one thread, N = {r['N']}: plain solve {r['solve_ms']:.1f} ms, log-density {r['value_ms']:.1f} ms, "
              f"with gradient {r['value_and_grad_ms']:.1f} ms = {r['grad_over_solve']:.2f}x one solve "
              f"(forward sensitivities bound it by about 1 + parameters + states = {r['bound']}); "
              f"steps {r['steps_solve']} vs {r['steps_grad']} (the error test includes the sensitivities)")
        if "value_and_grad_adjoint_ms" in r:
            print(f"host, one thread: with gradient by the discrete adjoint {r['value_and_grad_adjoint_ms']:.1f} ms = "
                  f"{r['adjoint_over_solve']:.2f}x one solve")
