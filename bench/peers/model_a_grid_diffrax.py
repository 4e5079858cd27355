"""Peer for Model A over a parameter grid (examples/model_a_grid.hpp, issue 15):
diffrax, jit(vmap(diffeqsolve)), Tsit5 + PIDController(rtol = atol = 1e-6),
SaveAt at t = 20, 40, ..., 200, the same G x G grid built from the same
formulas, written the way the shared peers (../shared/peers/ode_peers.py) write
theirs: median and minimum of 5 timed calls after 2 warm-ups, inputs on the
device, one JSON line.

Usage: python3 model_a_grid_diffrax.py DTYPE G [SAMPLE_DIR]
  DTYPE f32 or f64; G grid side (256: 2^16 trajectories).
'ref_err' is the largest relative error, max |y - y_ref| / max |y_ref| over the
final states of the sampled trajectories b = 0, G^2/256, 2 G^2/256, ... (256 of
them), against diffrax Dopri8 at rtol = atol = 1e-12 in float64 (computed by the
f64 run, kept in SAMPLE_DIR/diffrax_model_a_grid_ref.npy for the f32 run: run f64
first). With
SAMPLE_DIR holding fluxion_model_a_grid_<DTYPE>.bin and _warp.bin (written by
fluxion-bench-model-a-grid: the same sampled trajectories, canonical order
(c P + p) K + k), 'fluxion_ref_err' is fluxion's error against that reference.
"""
import json
import os
import sys
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
import numpy as np

DT, G = sys.argv[1], int(sys.argv[2])
SAMPLE_DIR = sys.argv[3] if len(sys.argv) > 3 else None
P, K, T_END, NSAVE = 8, 4, 200.0, 10

import jax
jax.config.update("jax_enable_x64", DT == "f64")
import jax.numpy as jnp
import diffrax

npdt = np.float32 if DT == "f32" else np.float64


def grid(g):
    """Initial states (B, 4, P, K) and parameters of the grid (examples/model_a_grid.hpp)."""
    b = np.arange(g * g)
    i, j = (b // g).astype(float), (b % g).astype(float)
    last = max(g - 1, 1)
    scale, period = 0.2 + 0.6 * i / last, 3.0 + 7.0 * j / last
    beta = scale[:, None] * (1 + 0.1 * np.arange(P))[None, :]
    gamma = 1.0 / period
    x0 = np.zeros((g * g, 4, P, K))
    x0[:, 0] = 1000 * (1 + 0.1 * np.arange(K))[None, None, :]
    x0[:, 2, 0, :] = 1.0
    return x0, beta, gamma


C = np.full((P, P), 0.2 / (P - 1))
np.fill_diagonal(C, 0.8)
SIGMA = 1 / 5.2
AGING = np.array([1 / 20, 1 / 40, 1 / 60, 0.0])


def vf(t, u, args):
    beta, gamma, Cm, a = args
    S, E, I, R = u[0], u[1], u[2], u[3]
    N = jnp.sum(u, axis=(0, 2))                     # (P,)
    lam = beta * (Cm @ (jnp.sum(I, axis=1) / N))    # (P,)
    def age(X):                                     # transport k -> k + 1 at a[k]
        out = -a[None, :] * X
        return out.at[:, 1:].add(a[None, :-1] * X[:, :-1])
    dS = -lam[:, None] * S + age(S)
    dE = lam[:, None] * S - SIGMA * E + age(E)
    dI = SIGMA * E - gamma * I + age(I)
    dR = gamma * I + age(R)
    return jnp.stack([dS, dE, dI, dR])


def solver(dtype, method, rtol, atol, saves):
    term = diffrax.ODETerm(vf)
    ts = jnp.asarray(np.linspace(T_END / NSAVE, T_END, NSAVE), dtype=dtype)
    saveat = diffrax.SaveAt(ts=ts) if saves else diffrax.SaveAt(t1=True)
    Cm, a = jnp.asarray(C, dtype=dtype), jnp.asarray(AGING, dtype=dtype)

    def one(x0, beta, gamma):
        sol = diffrax.diffeqsolve(term, method, 0.0, T_END, None, x0, args=(beta, gamma, Cm, a),
                                  stepsize_controller=diffrax.PIDController(rtol=rtol, atol=atol), saveat=saveat,
                                  max_steps=100000)
        return sol.ys, sol.stats["num_accepted_steps"], sol.result == diffrax.RESULTS.successful
    return jax.jit(jax.vmap(one))


def timeit(fn, reps=5, warm=2):
    for _ in range(warm):
        jax.block_until_ready(fn())
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter(); jax.block_until_ready(fn()); ts.append(time.perf_counter() - t0)
    return float(np.median(ts)), float(np.min(ts))


out = {"impl": "diffrax-tsit5-vmap", "model": "model_a_grid", "dtype": DT, "N": G * G, "states": 4 * P * K,
       "saves": NSAVE}
try:
    jdt = jnp.float32 if DT == "f32" else jnp.float64
    x0, beta, gamma = grid(G)
    dx0, dbeta, dgamma = (jnp.asarray(v, dtype=jdt) for v in (x0, beta, gamma))
    f = solver(jdt, diffrax.Tsit5(), 1e-6, 1e-6, True)
    t0 = time.perf_counter()
    ys, steps, ok = jax.block_until_ready(f(dx0, dbeta, dgamma))
    out["first_call_s"] = time.perf_counter() - t0
    med, mn = timeit(lambda: f(dx0, dbeta, dgamma))
    steps, ok = np.asarray(steps), np.asarray(ok)
    out.update(median_ms=med * 1e3, min_ms=mn * 1e3, traj_per_s=G * G / med, steps_mean=float(steps.mean()),
               steps_max=int(steps.max()), failed=int((~ok).sum()))
    # Accuracy on the sampled trajectories, against Dopri8 at 1e-12 in float64.
    stride = max(1, G * G // 256)
    pick = np.arange(0, G * G, stride)
    ref_path = SAMPLE_DIR and os.path.join(SAMPLE_DIR, "diffrax_model_a_grid_ref.npy")
    ref = None
    if DT == "f64":
        ref_f = solver(jnp.float64, diffrax.Dopri8(), 1e-12, 1e-12, False)
        ref, _, ref_ok = ref_f(jnp.asarray(x0[pick]), jnp.asarray(beta[pick]), jnp.asarray(gamma[pick]))
        ref = np.asarray(ref)[:, -1].reshape(len(pick), -1)
        out["ref_failed"] = int((~np.asarray(ref_ok)).sum())
        if ref_path:
            np.save(ref_path, ref)
    elif ref_path and os.path.exists(ref_path):
        ref = np.load(ref_path)
    if ref is not None:
        got = np.asarray(ys)[pick, -1].reshape(len(pick), -1).astype(np.float64)
        scale = np.abs(ref).max()
        out["ref_err"] = float(np.abs(got - ref).max() / scale)
    path = SAMPLE_DIR and os.path.join(SAMPLE_DIR, f"fluxion_model_a_grid_{DT}.bin")
    if ref is not None and path and os.path.exists(path):
        flu = np.fromfile(path, dtype="<f8").reshape(len(pick), -1)
        out["fluxion_ref_err"] = float(np.abs(flu - ref).max() / scale)
    warp_path = path and path.replace(".bin", "_warp.bin")
    if ref is not None and warp_path and os.path.exists(warp_path):
        flu = np.fromfile(warp_path, dtype="<f8").reshape(len(pick), -1)
        out["fluxion_warp_ref_err"] = float(np.abs(flu - ref).max() / scale)
except Exception as e:  # a failed peer prints its error instead of crashing the run
    out["error"] = f"{type(e).__name__}: {e}"
print(json.dumps(out), flush=True)
