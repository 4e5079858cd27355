"""Peers for bench/seir_log_density.cu: the SEIR example's log-density and its
gradient (with respect to the five parameters and the four initial states)
for N parameter sets, as a JAX user writes it (diffrax Tsit5 with a PID
controller, jax.value_and_grad, jax.vmap, jit) and as a PyTorch user does
(torchdiffeq dopri5 over the whole batch, one step size for all, autograd).

Usage: python3 seir_log_density_jax.py IMPL DTYPE N DATA_CSV VARIANT
  IMPL in jax, torch; DTYPE in f32, f64; VARIANT in full, exact.
Prints one JSON line per measurement (value; value_and_grad), with the first
trajectory's value and gradient for a cross-check against fluxion's.

Same parameter sets, priors, data and tolerances (rtol 1e-6, atol 1e-4) as
the fluxion side. Right-censored days ("more than 1,000") are
log(1 - sum_{y <= 1000} pmf(y)): jax.scipy.special.betainc, the closed
form, has no derivative in its first argument (the dispersion) in JAX
(jax-ml/jax#15487, #38610). VARIANT exact masks them instead.
"""
import csv, json, math, sys, time
import numpy as np

IMPL, DT, N, DATA, VARIANT = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
f64 = DT == "f64"
npdt = np.float64 if f64 else np.float32
POP, DAYS, CAP = 1e5, 70, 1000
WEYL = [0.7548776662466927, 0.5698402909980532, 0.6180339887498949, 0.4142135623730950, 0.7320508075688772]
LOW = [0.4, 0.2, 0.15, 0.2, 5.0]
WIDTH = [0.4, 0.1, 0.1, 0.2, 15.0]


def parameter_sets(n):
    b = np.arange(1, n + 1, dtype=np.float64)[:, None]
    f = b * np.asarray(WEYL)[None, :]
    p = np.asarray(LOW) + np.asarray(WIDTH) * (f - np.floor(f))
    x0 = np.tile(np.array([POP - 10.0, 0.0, 10.0, 0.0]), (n, 1))
    return p.astype(npdt), x0.astype(npdt)


rows = list(csv.DictReader(open(DATA)))
y = np.array([float(r["value"]) for r in rows])
observed = np.array([int(r["observed"]) for r in rows]).astype(bool)
censored = np.array([int(r["right_censored"]) for r in rows]).astype(bool)
if VARIANT == "exact":
    observed = observed & ~censored
exact_mask = (observed & ~censored).astype(npdt)
cens_mask = (observed & censored).astype(npdt)
cens_idx = np.nonzero(cens_mask)[0]
ts = np.arange(1, DAYS + 1, dtype=npdt)
p_all, x0_all = parameter_sets(N)
out = {"impl": IMPL, "variant": VARIANT, "dtype": DT, "N": N}


def timeit(fn, sync, reps=5, warm=1):
    for _ in range(warm):
        fn(); sync()
    t = []
    for _ in range(reps):
        sync(); a = time.perf_counter(); fn(); sync(); t.append(time.perf_counter() - a)
    return float(np.median(t)) * 1e3, float(np.min(t)) * 1e3


if IMPL == "jax":
    import jax
    jax.config.update("jax_enable_x64", f64)
    import jax.numpy as jnp
    import diffrax
    from jax.scipy.special import gammaln

    def vf(t, u, p):
        S, E, I, R = u
        inf = p[0] * S * I / (S + E + I + R)
        return jnp.stack([-inf, inf - p[1] * E, p[1] * E - p[2] * I, p[2] * I])

    term = diffrax.ODETerm(vf)
    ctrl = diffrax.PIDController(rtol=1e-6, atol=1e-4)
    tsj = jnp.asarray(ts)
    yj, em, cm = jnp.asarray(y, dtype=npdt), jnp.asarray(exact_mask), jnp.asarray(cens_mask)
    ks = jnp.arange(0, CAP + 1, dtype=npdt)

    def nb_logpmf(k, mu, phi):
        return (gammaln(k + phi) - gammaln(phi) - gammaln(k + 1) + phi * jnp.log(phi / (mu + phi))
                + k * jnp.log(mu / (mu + phi)))

    def lognormal_lp(x, m, s):
        z = (jnp.log(x) - m) / s
        return -0.5 * z * z - jnp.log(x) - jnp.log(s) - 0.5 * jnp.log(2 * jnp.pi)

    def log_density(p, x0):
        sol = diffrax.diffeqsolve(term, diffrax.Tsit5(), 0.0, float(DAYS), 0.1, x0, args=p, stepsize_controller=ctrl,
                                  saveat=diffrax.SaveAt(ts=tsj), max_steps=100000)
        mu = p[3] * p[1] * sol.ys[:, 1]
        phi = p[4]
        ll = jnp.sum(em * jnp.where(em > 0, nb_logpmf(yj, mu, phi), 0.0))
        if VARIANT == "full" and len(cens_idx):
            mc = mu[cens_idx]
            cdf = jnp.sum(jnp.exp(nb_logpmf(ks[None, :], mc[:, None], phi)), axis=1)
            ll = ll + jnp.sum(jnp.log1p(-jnp.minimum(cdf, 1 - 1e-16 if f64 else 1 - 1e-7)))
        lp = (lognormal_lp(p[0], math.log(0.5), 0.5) + lognormal_lp(p[1], math.log(0.25), 0.1)
              + lognormal_lp(p[2], math.log(0.2), 0.3)
              + (jnp.log(p[3]) + 4 * jnp.log1p(-p[3]) - (gammaln(2.0) + gammaln(5.0) - gammaln(7.0)))
              + (2 * jnp.log(0.1) - gammaln(2.0) + jnp.log(p[4]) - 0.1 * p[4]))
        return ll + lp

    value = jax.jit(jax.vmap(log_density))
    value_and_grad = jax.jit(jax.vmap(jax.value_and_grad(log_density, argnums=(0, 1))))
    dp, dx = jnp.asarray(p_all), jnp.asarray(x0_all)
    h = {}
    for what, f in (("value", value), ("value_and_grad", value_and_grad)):
        def call():
            h["r"] = f(dp, dx)
        def sync():
            if "r" in h:
                jax.block_until_ready(h["r"])
        med, mn = timeit(call, sync)
        r = h["r"]
        rec = dict(out, what=what, median_ms=med, min_ms=mn)
        if what == "value":
            rec["value0"] = float(r[0])
        else:
            rec["value0"] = float(r[0][0])
            rec["grad0"] = [float(v) for v in np.concatenate([np.asarray(r[1][0][0]), np.asarray(r[1][1][0])])]
        print(json.dumps(rec), flush=True)
elif IMPL == "torch":
    import torch
    from torchdiffeq import odeint
    dev = torch.device("cuda")
    tdt = torch.float64 if f64 else torch.float32
    tp0 = torch.as_tensor(p_all, device=dev, dtype=tdt)
    tx0 = torch.as_tensor(x0_all, device=dev, dtype=tdt)
    tt = torch.as_tensor(np.concatenate([[0.0], ts]), device=dev, dtype=tdt)
    ty = torch.as_tensor(y, device=dev, dtype=tdt)
    tem, tcm = torch.as_tensor(exact_mask, device=dev, dtype=tdt), torch.as_tensor(cens_mask, device=dev, dtype=tdt)
    ks = torch.arange(0, CAP + 1, device=dev, dtype=tdt)

    def nb_logpmf(k, mu, phi):
        return (torch.lgamma(k + phi) - torch.lgamma(phi) - torch.lgamma(k + 1) + phi * torch.log(phi / (mu + phi))
                + k * torch.log(mu / (mu + phi)))

    def lognormal_lp(x, m, s):
        z = (torch.log(x) - m) / s
        return -0.5 * z * z - torch.log(x) - math.log(s) - 0.5 * math.log(2 * math.pi)

    def log_density(p, x0):
        def vf(t, u):
            S, E, I, R = u[:, 0], u[:, 1], u[:, 2], u[:, 3]
            inf = p[:, 0] * S * I / (S + E + I + R)
            return torch.stack([-inf, inf - p[:, 1] * E, p[:, 1] * E - p[:, 2] * I, p[:, 2] * I], 1)
        ys = odeint(vf, x0, tt, method="dopri5", rtol=1e-6, atol=1e-4)[1:]  # (days, N, 4)
        mu = (p[:, 3] * p[:, 1])[None, :] * ys[:, :, 1]
        phi = p[:, 4][None, :]
        ll = torch.sum(tem[:, None] * torch.where(tem[:, None] > 0, nb_logpmf(ty[:, None], mu, phi), 0.0), 0)
        if VARIANT == "full":
            cdf = torch.zeros_like(mu)
            for d in np.nonzero(cens_mask)[0]:
                cdf[d] = torch.exp(nb_logpmf(ks[:, None], mu[d][None, :], phi)).sum(0)
            ll = ll + torch.sum(tcm[:, None] * torch.where(tcm[:, None] > 0, torch.log1p(-cdf.clamp(max=1 - 1e-7)), 0.0), 0)
        lp = (lognormal_lp(p[:, 0], math.log(0.5), 0.5) + lognormal_lp(p[:, 1], math.log(0.25), 0.1)
              + lognormal_lp(p[:, 2], math.log(0.2), 0.3)
              + torch.log(p[:, 3]) + 4 * torch.log1p(-p[:, 3]) - (math.lgamma(2) + math.lgamma(5) - math.lgamma(7))
              + 2 * math.log(0.1) - math.lgamma(2) + torch.log(p[:, 4]) - 0.1 * p[:, 4])
        return ll + lp

    h = {}
    def value():
        with torch.no_grad():
            h["v"] = log_density(tp0, tx0)
    def value_and_grad():
        p = tp0.clone().requires_grad_(True)
        x = tx0.clone().requires_grad_(True)
        v = log_density(p, x)
        gp, gx = torch.autograd.grad(v.sum(), (p, x))
        h["v"], h["g"] = v.detach(), torch.cat([gp, gx], 1)
    for what, f in (("value", value), ("value_and_grad", value_and_grad)):
        med, mn = timeit(f, torch.cuda.synchronize, reps=3)
        rec = dict(out, what=what, median_ms=med, min_ms=mn, value0=float(h["v"][0]),
                   note="dopri5 with one step size for the whole batch")
        if what == "value_and_grad":
            rec["grad0"] = [float(v) for v in h["g"][0].cpu().numpy()]
        print(json.dumps(rec), flush=True)
