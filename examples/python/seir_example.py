"""The SEIR outbreak of examples/seir_model.hpp, from Python.

A closed population of 100,000 goes through an outbreak (S -> E -> I -> R);
each day a fraction rho of the new cases (rho sigma E) is reported, with
negative binomial noise of dispersion phi. This script

  1. makes synthetic data: the model at known parameters, negative binomial
     counts drawn with NumPy, a reporting gap (days 30-34 missing) and a cap
     (counts above 1,000 are recorded only as "more than 1,000");
  2. integrates an ensemble of 10,000 prior draws in one call from NumPy
     (and from CuPy on a GPU, when the module was built with CUDA);
  3. fits the parameters: the maximum of the log-posterior, with the
     module's exact gradients and a small BFGS written here in NumPy;
  4. draws a figure of the data, the fit and the ensemble.

The module seir_py is built by Meson from seir_module.hpp (examples/python/
meson.build); FLUXION_PYTHON_PATH names the folders that hold it:

  FLUXION_PYTHON_PATH=build/examples/python python3 examples/python/seir_example.py

Exits with status 1 when a check fails (the test 'seir_python' runs it).
"""
import argparse
import os
import sys
import time

import numpy as np

for folder in reversed(os.environ.get("FLUXION_PYTHON_PATH", "").split(os.pathsep)):
    if folder and folder not in sys.path:
        sys.path.insert(0, folder)

try:
    import seir_py as m
except ImportError as e:
    sys.exit("cannot import seir_py (%s): build it with Meson and set FLUXION_PYTHON_PATH "
             "to the folder that holds it, e.g. build/examples/python" % e)

HERE = os.path.dirname(os.path.abspath(__file__))
FIGURE = os.path.normpath(os.path.join(HERE, "..", "..", "docs", "img", "python-seir.png"))

# --- The problem (examples/seir_model.hpp) -------------------------------------

POPULATION = 1e5
DAYS = 70
TRUTH = {"beta": 0.6, "sigma": 0.25, "gamma": 0.2, "rho": 0.3, "phi": 12.0}
I0 = 10.0                                   # initially infectious, known here
CAP = 1000.0                                # reported counts above it are censored
GAP = (30, 34)                              # days with no report

names = m.names("parameter")                # ['beta', 'sigma', 'gamma', 'rho', 'phi']
n_params = m.n_params
assert names == list(TRUTH), names
truth = np.array([TRUTH[k] for k in names])
x0 = np.array([POPULATION - I0, 0.0, I0, 0.0])   # S, E, I, R
days = np.arange(1.0, DAYS + 1.0)           # save times: days 1..70
t_span = (0.0, float(DAYS))

failures = []


def check(ok, what):
    """Prints a check's outcome and remembers a failure (the exit status)."""
    print("  [%s] %s" % ("ok" if ok else "FAILED", what))
    if not ok:
        failures.append(what)


def reported(saved, p):
    """The reported incidence (B, n_days) of saved states (B, n_days, 4) with
    parameters p ((n_params,) or (B, n_params)): the model's observable, one
    call a save time."""
    return np.stack([m.observe(t, saved[:, k, :], p)[:, 0] for k, t in enumerate(days)], axis=1)


def prior_draws(rng, n):
    """n draws (n, n_params) from the priors of seir_model.hpp."""
    return np.column_stack([
        rng.lognormal(np.log(0.5), 0.5, n),     # beta
        rng.lognormal(np.log(0.25), 0.1, n),    # sigma
        rng.lognormal(np.log(0.2), 0.3, n),     # gamma
        rng.beta(2.0, 5.0, n),                  # rho
        rng.gamma(2.0, 1 / 0.1, n),             # phi: shape 2, rate 0.1
    ])


def synthetic_data(rng):
    """Counts drawn at the true parameters, with the gap and the cap."""
    sol = m.integrate(x0, truth, t_span=t_span, save_times=days, rtol=1e-10, atol=1e-8)
    check(sol.status[0] == 0, "the true trajectory integrates (%s)" % m.status_names[sol.status[0]])
    mu = reported(sol.saved, truth)[0]
    phi = TRUTH["phi"]
    counts = rng.negative_binomial(phi, phi / (phi + mu)).astype(float)   # mean mu, variance mu + mu^2/phi
    mask = np.ones(DAYS)
    mask[(days >= GAP[0]) & (days <= GAP[1])] = 0                        # missing
    censored = counts > CAP
    series = {
        "values": np.where(censored, CAP, counts),     # a censored day records the cap ...
        "mask": mask,
        "censoring": np.where(censored, 2, 0),          # ... as right-censored: Y > 1000
    }
    return series, counts, mu, sol.saved[0]


# --- Fit -------------------------------------------------------------------------

def log_posterior(data, u):
    """The log-posterior of the parameters exp(u) and its gradient in u
    (d/du = theta dlp/dtheta), or (-inf, None) where the solver fails."""
    theta = np.exp(u)
    d = m.log_density(x0, theta, data=data, t_span=t_span, save_times=days, rtol=1e-10, atol=1e-8)
    if d.status[0] != 0 or not np.isfinite(d.value[0]):
        return -np.inf, None
    return d.value[0], theta * d.gradient[0, :n_params]   # columns: parameters, then initial states


def bfgs_maximize(f, u, gtol=1e-4, max_iter=200):
    """Maximizes f (returning value and gradient) from u: BFGS on -f with a
    backtracking (Armijo) line search. Returns u, value, gradient, iterations."""
    value, g = f(u)
    H = np.eye(len(u)) * min(1.0, 0.1 / np.linalg.norm(g))   # the first step moves u by <= 0.1
    for it in range(max_iter):
        if np.max(np.abs(g)) < gtol:
            return u, value, g, it
        step = H @ g                                  # an ascent direction
        if step @ g <= 0:                             # lost it: restart from the gradient
            H = np.eye(len(u)) * min(1.0, 0.1 / np.linalg.norm(g))
            step = H @ g
        t = 1.0
        while True:
            new_value, new_g = f(u + t * step)
            if np.isfinite(new_value) and new_value >= value + 1e-4 * t * (step @ g):
                break
            t *= 0.5
            if t < 1e-10:
                raise RuntimeError("the line search failed at iteration %d" % it)
        s, y = t * step, g - new_g                    # y: the change of the gradient of -f
        u, value, g = u + s, new_value, new_g
        if s @ y > 1e-12:
            if it == 0:
                H = np.eye(len(u)) * (s @ y) / (y @ y)
            r = 1.0 / (s @ y)
            V = np.eye(len(u)) - r * np.outer(s, y)
            H = V @ H @ V.T + r * np.outer(s, s)
    raise RuntimeError("BFGS did not converge in %d iterations (max |gradient| %.2e)"
                       % (max_iter, np.max(np.abs(g))))


# --- Figure ------------------------------------------------------------------------

def figure(path, data, counts, mu_true, mu_fit, band, infectious, infectious_true, infectious_fit):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2), constrained_layout=True)
    seen = (data["mask"] == 1) & (data["censoring"] == 0)
    cens = (data["mask"] == 1) & (data["censoring"] == 2)
    left.fill_between(days, band[0], band[1], color="tab:blue", alpha=0.15, lw=0,
                      label="prior draws, 5-95%")
    left.axvspan(GAP[0] - 0.5, GAP[1] + 0.5, color="0.85", lw=0, label="missing (mask 0)")
    left.plot(days[seen], counts[seen], "o", ms=3.5, color="k", label="reported cases")
    left.plot(days[cens], data["values"][cens], "^", ms=6, color="tab:red",
              label="> %d (right-censored)" % CAP)
    left.plot(days, mu_true, "--", color="0.4", lw=1, label="truth")
    left.plot(days, mu_fit, color="tab:blue", lw=2, label="MAP fit")
    left.set(xlabel="day", ylabel="reported incidence", title="Reported cases: data and MAP fit",
             ylim=(0, 1.6 * max(counts.max(), mu_fit.max())), xlim=(0, DAYS + 1))
    left.legend(fontsize=8, loc="upper left")

    # Many faint lines: without anti-aliasing the PNG stays small.
    right.plot(days, infectious.T, color="tab:purple", alpha=0.1, lw=0.7, antialiased=False)
    right.plot(days, infectious_true, "--", color="0.4", lw=1, label="truth")
    right.plot(days, infectious_fit, color="k", lw=2, label="MAP fit")
    right.set(xlabel="day", ylabel="infectious I(t)", yscale="log", ylim=(1, POPULATION), xlim=(0, DAYS + 1),
              title="%d prior draws: infectious" % infectious.shape[0])
    right.legend(fontsize=8, loc="lower right")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


# --- Main ------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=FIGURE, help="the figure (PNG); default docs/img/python-seir.png")
    parser.add_argument("--ensemble", type=int, default=10_000, help="prior draws integrated at once")
    parser.add_argument("--seed", type=int, default=20261204)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print("seir_py: %d states %s, %d parameters %s, CUDA %s (%s, fluxion %s)"
          % (m.n_states, m.names("state"), n_params, names, "yes" if m.has_cuda else "no", m.binding,
             m.fluxion_version))

    # 1. Synthetic data.
    print("\n1. synthetic data")
    series, counts, mu_true, states_true = synthetic_data(rng)
    data = [series]   # one dict a series of the module's likelihood (here: reported cases)
    print("  %d days, %d missing, %d right-censored above %d, peak count %d"
          % (DAYS, int((series["mask"] == 0).sum()), int((series["censoring"] == 2).sum()), CAP, counts.max()))

    # 2. An ensemble of prior draws, every trajectory with its own steps.
    print("\n2. ensemble of %d prior draws" % args.ensemble)
    draws = prior_draws(rng, args.ensemble)
    m.integrate(x0, draws[:2], t_span=t_span, save_times=days)          # warm-up
    start = time.perf_counter()
    ens = m.integrate(x0, draws, t_span=t_span, save_times=days, rtol=1e-8, atol=1e-8)
    host_seconds = time.perf_counter() - start
    ok = ens.status == 0
    print("  NumPy: %.3f s on %d threads (%d steps per trajectory on average)"
          % (host_seconds, os.cpu_count(), ens.stats["accepted"].mean()))
    check(ok.all(), "every trajectory integrates (%d failed)" % (~ok).sum())
    run_on_gpu(draws, ens, host_seconds)

    # 3. The fit: the log-posterior's maximum over log(parameters).
    print("\n3. MAP fit")
    starts = prior_draws(rng, 1000)
    d = m.log_density(x0, starts, data=data, t_span=t_span, save_times=days, gradient=False)
    values = np.where(d.status == 0, d.value, -np.inf)
    u0 = np.log(starts[np.argmax(values)])
    print("  start: the best of %d prior draws (one call), log-posterior %.2f" % (len(starts), values.max()))

    # The gradient against central differences, all 2 n_params points in one call.
    h = 1e-5
    shifted = np.exp(u0 + h * np.vstack([np.eye(n_params), -np.eye(n_params)]))
    fd = m.log_density(x0, shifted, data=data, t_span=t_span, save_times=days, rtol=1e-12, atol=1e-10,
                       gradient=False).value
    fd = (fd[:n_params] - fd[n_params:]) / (2 * h)
    _, g0 = log_posterior(data, u0)
    check(np.allclose(g0, fd, rtol=1e-4, atol=1e-4 * np.abs(g0).max()),
          "the gradient matches central differences (max |difference| %.1e)" % np.abs(g0 - fd).max())

    start = time.perf_counter()
    evaluations = [0]

    def counted(u):
        evaluations[0] += 1
        return log_posterior(data, u)

    u, lp, g, iterations = bfgs_maximize(counted, u0)
    fit_seconds = time.perf_counter() - start
    fit = np.exp(u)
    print("  BFGS: %d iterations, %d log-density evaluations, %.2f s; log-posterior %.4f, max |gradient| %.1e"
          % (iterations, evaluations[0], fit_seconds, lp, np.abs(g).max()))
    print("  %-6s %10s %10s %8s" % ("", "MAP", "truth", "ratio"))
    for k, name in enumerate(names):
        print("  %-6s %10.4f %10.4f %8.3f" % (name, fit[k], truth[k], fit[k] / truth[k]))
    r0_fit, r0_true = fit[0] / fit[2], truth[0] / truth[2]   # (65 noisy days tell beta - gamma better than R0)
    print("  %-6s %10.4f %10.4f %8.3f" % ("R0", r0_fit, r0_true, r0_fit / r0_true))
    check(np.abs(g).max() < 1e-4, "the gradient vanishes at the fit")
    for name in ("beta", "rho"):
        k = names.index(name)
        check(abs(fit[k] / truth[k] - 1) < 0.3, "%s within 30%% of the truth" % name)

    # 4. The figure: the fit's reported incidence, the ensemble's band and infectious curves.
    best = m.integrate(x0, fit, t_span=t_span, save_times=days, rtol=1e-10, atol=1e-8)
    mu_fit = reported(best.saved, fit)[0]
    ens_reported = reported(ens.saved[ok], draws[ok])
    band = np.percentile(ens_reported, [5, 95], axis=0)
    shown = rng.choice(np.flatnonzero(ok), size=min(300, ok.sum()), replace=False)
    i = m.names("state").index("I")
    infectious = ens.saved[shown, :, i]
    figure(args.out, series, counts, mu_true, mu_fit, band, infectious, states_true[:, i], best.saved[0, :, i])
    print("\n4. wrote %s (%d KB)" % (args.out, os.path.getsize(args.out) // 1024))

    if failures:
        print("\n%d check(s) failed: %s" % (len(failures), "; ".join(failures)))
        return 1
    print("\nall checks passed")
    return 0


def run_on_gpu(draws, ens, host_seconds):
    """The same ensemble from CuPy arrays, where CuPy, a GPU and a CUDA build
    of the module are there: the results stay on the GPU."""
    if not m.has_cuda:
        print("  CuPy: skipped (seir_py was built without CUDA)")
        return
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no CUDA device")
    except Exception as e:  # ImportError, or no usable GPU
        print("  CuPy: skipped (%s)" % e)
        return
    x0_gpu, draws_gpu = cupy.asarray(x0), cupy.asarray(draws)
    m.integrate(x0_gpu, draws_gpu[:2], t_span=t_span, save_times=days)        # warm-up (loads the kernels)
    cupy.cuda.get_current_stream().synchronize()
    start = time.perf_counter()
    gpu = m.integrate(x0_gpu, draws_gpu, t_span=t_span, save_times=days, rtol=1e-8, atol=1e-8)
    cupy.cuda.get_current_stream().synchronize()
    gpu_seconds = time.perf_counter() - start
    saved = cupy.asnumpy(gpu.saved)
    both = (cupy.asnumpy(gpu.status) == 0) & (ens.status == 0)
    error = np.abs(saved[both] - ens.saved[both]) / np.maximum(np.abs(ens.saved[both]), 1.0)
    print("  CuPy:  %.3f s on %s (NumPy %.3f s, %.1fx)"
          % (gpu_seconds, cupy.cuda.runtime.getDeviceProperties(0)["name"].decode(), host_seconds,
             host_seconds / gpu_seconds))
    check(error.max() < 1e-6, "GPU and host agree (max relative difference %.1e)" % error.max())


if __name__ == "__main__":
    sys.exit(main())
