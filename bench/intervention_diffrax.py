"""The peer of bench/intervention_device.cu: the same SEIR with a lockdown on
day 30 and a vaccination pulse on day 60, the same inputs (read from the
files the fluxion benchmark writes into DIR), integrated by diffrax's Tsit5
under jit(vmap) with the same tolerances (PIDController rtol 1e-6, atol
1e-8, its own first step), stopping at both dates as fluxion does: three
diffeqsolve calls, the events applied between them (diffrax's documented
way for a change of state at a given time). Median and minimum of 5 timed
runs after 2 warm-ups (block_until_ready), mean accepted steps, and the
error of the final states of the first 512 trajectories against fluxion's
host reference at rtol 1e-12. One JSON object per line.

Usage: python3 bench/intervention_diffrax.py DIR N [N ...]"""
import json
import sys
import time

import numpy as np


def main():
    out_dir, sizes = sys.argv[1], [int(a) for a in sys.argv[2:]]
    import jax
    import jax.numpy as jnp
    import diffrax
    for f64 in (False, True):
        jax.config.update("jax_enable_x64", f64)
        dt = jnp.float64 if f64 else jnp.float32

        def f(t, y, a):
            beta, sigma, gamma, effect = a
            inf = beta * (1 - effect * y[4]) * y[0] * y[2]
            return jnp.stack([-inf, inf - sigma * y[1], sigma * y[1] - gamma * y[2], gamma * y[2], 0 * y[4]])

        term = diffrax.ODETerm(f)
        ctrl = diffrax.PIDController(rtol=1e-6, atol=1e-8)

        def segment(y, a, t0, t1):
            s = diffrax.diffeqsolve(term, diffrax.Tsit5(), t0, t1, None, y, args=a, stepsize_controller=ctrl,
                                    saveat=diffrax.SaveAt(t1=True), max_steps=100000)
            return s.ys[-1], s.stats["num_accepted_steps"]

        def solve(y, a):
            y, n1 = segment(y, a, 0.0, 30.0)
            y = y.at[4].set(1.0)                          # the lockdown
            y, n2 = segment(y, a, 30.0, 60.0)
            y = y.at[3].add(0.2 * y[0]).at[0].mul(0.8)    # the vaccination pulse
            y, n3 = segment(y, a, 60.0, 120.0)
            return y, n1 + n2 + n3

        run = jax.jit(jax.vmap(solve))
        for N in sizes:
            raw = np.fromfile("%s/inputs_%d.f64" % (out_dir, N))
            x0 = jnp.asarray(raw[:5 * N].reshape(5, N).T, dtype=dt)
            p = jnp.asarray(raw[5 * N:].reshape(4, N).T, dtype=dt)
            args = tuple(p[:, j] for j in range(4))
            for _ in range(2):
                run(x0, args)[0].block_until_ready()
            ts = []
            for _ in range(5):
                t0 = time.perf_counter()
                run(x0, args)[0].block_until_ready()
                ts.append(time.perf_counter() - t0)
            y, steps = run(x0, args)
            ref = np.fromfile("%s/reference.f64" % out_dir).reshape(-1, 5)
            got = np.asarray(y[:len(ref)], dtype=np.float64)
            print(json.dumps({"impl": "diffrax-tsit5-segments", "dtype": "f64" if f64 else "f32", "N": N,
                              "median_ms": 1e3 * float(np.median(ts)), "min_ms": 1e3 * float(np.min(ts)),
                              "steps_mean": float(np.mean(np.asarray(steps))),
                              "ref_err": float(np.abs(got - ref).max() / np.abs(ref).max())}), flush=True)


if __name__ == "__main__":
    main()
