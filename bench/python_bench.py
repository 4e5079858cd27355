#!/usr/bin/env python3
"""fluxion's Python modules measured from Python, one JSON line each:

  host-call    rhs of Model A for one instance (B = 1) on NumPy arrays: the
               cost of a call from Python (median of blocks of calls)
  gpu-rhs      rhs of Model A at B = 2^20 on CuPy arrays, structure of arrays
               ((n, B) buffers passed transposed), into out= and into a new
               array, f64 and f32 (CUDA events, median of 20)
  cupy-rhs     the same equations as CuPy array expressions (the users'
               alternative without fluxion)
  integrate    Lorenz (Model B), 1e6 trajectories, Tsit5 adaptive
               rtol = atol = 1e-6, first step 1e-3, f32 and f64, final state only
  log-density  the SEIR example's log-density and gradient for the parameter
               sets and data written by fluxion-bench-seir-log-density
               (SETS_DIR/seir_sets.f64, seir_data.csv), f64 and f32

The GPU calls run again at B = N = 1024 (and on SMALL_SETS_DIR's sets),
where the GPU's work is a few microseconds and the time is the fixed cost
of a call, to set beside the C++ launchers' at the same sizes.

    FLUXION_PYTHON_PATH=BUILD/bench/python python3 bench/python_bench.py [SETS_DIR [SMALL_SETS_DIR]]

bench/run_python.sh runs it beside the C++ launchers and the peers.
"""
import json
import os
import sys
import time

import numpy as np

for folder in os.environ.get("FLUXION_PYTHON_PATH", "").split(os.pathsep):
    if folder:
        sys.path.insert(0, folder)

import lorenz_py
import model_a_py
import seir_py

P, K = 8, 4


def emit(**kw):
    print(json.dumps(kw), flush=True)


def model_a_inputs(B, dtype, seed=1):
    r = np.random.default_rng(seed)
    x = r.uniform(0.1, 1.0, size=(B, 4 * P * K))
    beta = r.uniform(0.1, 0.5, size=(B, P))
    C = r.uniform(0.0, 1.0, size=(B, P * P))
    sg = r.uniform(0.1, 0.3, size=(B, 1))
    gm = r.uniform(0.05, 0.2, size=(B, 1))
    a = r.uniform(0.01, 0.05, size=(B, K))
    a[:, -1] = 0.0
    p = np.concatenate([beta, C, sg, gm, a], axis=1)
    return x.astype(dtype), p.astype(dtype)


def host_call():
    x, p = model_a_inputs(1, np.float64)
    x, p = x[0].copy(), p[0].copy()
    out = np.empty_like(x)
    for label, kw in [("new array", {}), ("out=", {"out": out})]:
        blocks = []
        for _ in range(7):
            n = 20000
            t0 = time.perf_counter()
            for _ in range(n):
                model_a_py.rhs(0.0, x, p, **kw)
            blocks.append((time.perf_counter() - t0) / n * 1e6)
        emit(bench="host-call", what="rhs", result=label, B=1, dtype="f64", us=float(np.median(blocks)),
             us_min=float(min(blocks)))


def events_ms(cp, fn, reps=20, warm=3):
    for _ in range(warm):
        fn()
    cp.cuda.get_current_stream().synchronize()
    a, b = cp.cuda.Event(), cp.cuda.Event()
    ms = []
    for _ in range(reps):
        a.record()
        fn()
        b.record()
        b.synchronize()
        ms.append(cp.cuda.get_elapsed_time(a, b))
    return float(np.median(ms)), float(min(ms))


def cupy_rhs(cp, xs, ps):
    """Model A as CuPy array expressions over (n, B) structure-of-arrays
    buffers: what a user writes without fluxion."""
    B = xs.shape[1]
    x = xs.reshape(4, P, K, B)
    S, E, I, R = x[0], x[1], x[2], x[3]
    beta = ps[0:P]
    C = ps[P:P + P * P].reshape(P, P, B)
    sg, gm = ps[P + P * P], ps[P + P * P + 1]
    a = ps[P + P * P + 2:].reshape(K, 1, B)
    N = x.sum(axis=(0, 2))
    frac = I.sum(axis=1) / N
    lam = beta * (C * frac[None, :, :]).sum(axis=1)

    def age(X):
        out = -a.transpose(1, 0, 2) * X
        out[:, 1:] += (a.transpose(1, 0, 2) * X)[:, :-1]
        return out
    dS = -lam[:, None] * S + age(S)
    dE = lam[:, None] * S - sg * E + age(E)
    dI = sg * E - gm * I + age(I)
    dR = gm * I + age(R)
    return cp.stack([dS, dE, dI, dR]).reshape(4 * P * K, B)


def gpu_rhs(cp, B=1 << 20, with_peers=True):
    for dtype, name in [(np.float64, "f64"), (np.float32, "f32")]:
        x, p = model_a_inputs(B, dtype)
        xs = cp.asarray(np.ascontiguousarray(x.T))  # (n, B): element rows, batch fastest
        ps = cp.asarray(np.ascontiguousarray(p.T))
        out = cp.empty_like(xs)
        moved = B * (2 * x.shape[1] + p.shape[1]) * x.itemsize
        ms, mn = events_ms(cp, lambda: model_a_py.rhs(0.0, xs.T, ps.T, out=out.T))
        emit(bench="gpu-rhs", impl="fluxion-python", result="out=", B=B, dtype=name, ms=ms, min_ms=mn,
             GBps=moved / ms / 1e6)
        ms, mn = events_ms(cp, lambda: model_a_py.rhs(0.0, xs.T, ps.T))
        emit(bench="gpu-rhs", impl="fluxion-python", result="new array", B=B, dtype=name, ms=ms, min_ms=mn,
             GBps=moved / ms / 1e6)
        if not with_peers:
            continue
        got = cp.asnumpy(model_a_py.rhs(0.0, xs.T, ps.T))
        ref = cp.asnumpy(cupy_rhs(cp, xs, ps)).T
        err = float(np.abs(got - ref).max() / np.abs(ref).max())
        ms, mn = events_ms(cp, lambda: cupy_rhs(cp, xs, ps))
        emit(bench="gpu-rhs", impl="cupy-expressions", B=B, dtype=name, ms=ms, min_ms=mn, GBps=moved / ms / 1e6,
             max_rel_diff_vs_fluxion=err)
        del xs, ps, out
        cp.get_default_memory_pool().free_all_blocks()


def integrate(cp, N=1000000):
    r = np.random.default_rng(3)
    u0 = r.uniform(0.5, 1.5, size=(3, N))
    prm = np.stack([r.uniform(5, 15, N), r.uniform(20, 30, N), r.uniform(2, 3, N)])
    for dtype, name in [(np.float32, "f32"), (np.float64, "f64")]:
        xs, ps = cp.asarray(u0.astype(dtype)), cp.asarray(prm.astype(dtype))
        call = lambda: lorenz_py.integrate(xs.T, ps.T, t_span=(0.0, 1.0), method="tsit5", rtol=1e-6, atol=1e-6,
                                           initial_step=1e-3)
        ms, mn = events_ms(cp, call, reps=5, warm=2)
        res = call()
        cp.cuda.get_current_stream().synchronize()
        emit(bench="integrate", impl="fluxion-python", model="lorenz", method="tsit5", N=N, dtype=name, median_ms=ms,
             min_ms=mn, steps_mean=float(cp.asnumpy(res.stats["accepted"]).mean()),
             failed=int((cp.asnumpy(res.status) != 0).sum()))


def log_density(cp, sets_dir):
    path = os.path.join(sets_dir, "seir_sets.f64")
    if not os.path.exists(path):
        emit(bench="log-density", skipped="no %s (run fluxion-bench-seir-log-density first)" % path)
        return
    raw = np.fromfile(path, dtype=np.float64)
    n = raw.size // 9
    x0, p = raw[:4 * n].reshape(4, n), raw[4 * n:].reshape(5, n)
    data = np.genfromtxt(os.path.join(sets_dir, "seir_data.csv"), delimiter=",", names=True)
    series = [{"values": data["value"], "mask": data["observed"], "censoring": 2 * data["right_censored"]}]
    days = data["day"].astype(np.float64)
    for dtype, name in [(np.float64, "f64"), (np.float32, "f32")]:
        xs, ps = cp.asarray(x0.astype(dtype)), cp.asarray(p.astype(dtype))
        for policy in ["thread", "adjoint"]:
            # stats=False: fluxion-bench-seir-log-density collects no step statistics either.
            call = lambda: seir_py.log_density(xs.T, ps.T, data=series, t_span=(0.0, 70.0), save_times=days,
                                               method="tsit5", rtol=1e-6, atol=1e-4, policy=policy, stats=False)
            ms, mn = events_ms(cp, call, reps=5, warm=1)
            d = call()
            emit(bench="log-density", impl="fluxion-python", policy=policy, what="value_and_grad", N=n, dtype=name,
                 median_ms=ms, min_ms=mn, value0=float(cp.asnumpy(d.value)[0]),
                 failed=int((cp.asnumpy(d.status) != 0).sum()))


def main():
    host_call()
    try:
        import cupy as cp
        cp.cuda.runtime.getDeviceCount()
    except Exception as e:
        emit(bench="gpu", skipped="no CuPy or GPU: %s" % e)
        return
    gpu_rhs(cp)
    integrate(cp)
    log_density(cp, sys.argv[1] if len(sys.argv) > 1 else ".")
    gpu_rhs(cp, B=1024, with_peers=False)
    integrate(cp, N=1024)
    if len(sys.argv) > 2:
        log_density(cp, sys.argv[2])


if __name__ == "__main__":
    main()
