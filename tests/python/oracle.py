"""The models of the python suite written again by hand in NumPy, without
fluxion: the hierarchical fixture of fixture_module.hpp (its flat layout,
right-hand side, observables) and the SEIR example of examples/seir_model.hpp
(right-hand side, reported incidence, the log-density of its likelihood and
priors), and a fine fixed-step RK4 integration. The python suite checks the
modules against these."""
import math

import numpy as np

L, H, S = 2, 2, 3
# Flat offsets, declaration order, row-major (last index fastest).
X0, F0 = 0, L * H * S
N_STATES = L * H * S + L * H  # 16
P_M, P_MU, P_K, P_FEC, P_C, P_R, P_G, P_D = 0, 3, 7, 9, 12, 15, 16, 17
N_PARAMS = 17 + H * H  # 21
O_ADULTS, O_PEAK, O_GRAND, O_SCARCEST = 0, 4, 8, 9
N_OBSERVABLES = 10
TWO_PI = 6.283185307179586


def state_names():
    return ["X[%d][%d][%d]" % (a, b, c) for a in range(L) for b in range(H) for c in range(S)] + [
        "F[%d][%d]" % (a, b) for a in range(L) for b in range(H)]


def param_names():
    return (["m[%d]" % s for s in range(S)] + ["mu[%d][%d]" % (a, b) for a in range(L) for b in range(H)]
            + ["K[%d]" % b for b in range(H)] + ["fec[%d]" % s for s in range(S)] + ["c[%d]" % s for s in range(S)]
            + ["r", "g"] + ["D[%d][%d]" % (a, b) for a in range(H) for b in range(H)])


def random_point(rng, batch):
    """Plausible states and parameters, (batch, n) each, float64."""
    x = np.empty((batch, N_STATES))
    x[:, X0:F0] = rng.uniform(0.1, 3.0, (batch, F0 - X0))
    x[:, F0:] = rng.uniform(0.05, 1.0, (batch, N_STATES - F0))
    p = np.empty((batch, N_PARAMS))
    p[:, P_M:P_MU] = rng.uniform(0.05, 0.8, (batch, S))
    p[:, P_MU:P_K] = rng.uniform(0.01, 0.3, (batch, L * H))
    p[:, P_K:P_FEC] = rng.uniform(5.0, 20.0, (batch, H))
    p[:, P_FEC] = rng.uniform(1.0, 4.0, batch)
    p[:, P_FEC + 1:P_C] = rng.uniform(0.0, 0.2, (batch, S - 1))
    p[:, P_C:P_R] = rng.uniform(0.0, 0.5, (batch, S))
    p[:, P_R] = rng.uniform(0.1, 1.0, batch)
    p[:, P_G] = rng.uniform(0.1, 1.0, batch)
    p[:, P_D:] = rng.uniform(0.0, 0.2, (batch, H * H))
    return x, p


def rhs(t, x, p):
    """d(state)/dt for a batch (B, 16) of states and (B, 21) of parameters."""
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    p = np.atleast_2d(np.asarray(p, dtype=np.float64))
    B = max(x.shape[0], p.shape[0])
    x = np.broadcast_to(x, (B, N_STATES))
    p = np.broadcast_to(p, (B, N_PARAMS))
    X = x[:, X0:F0].reshape(B, L, H, S)              # X[b, l, h, s]
    F = x[:, F0:].reshape(B, L, H)
    m = p[:, P_M:P_MU]                                # m[b, s]
    mu = p[:, P_MU:P_K].reshape(B, L, H)
    K = p[:, P_K:P_FEC]                               # K[b, h]
    fec = p[:, P_FEC:P_C]
    c = p[:, P_C:P_R]
    r, g = p[:, P_R], p[:, P_G]
    D = p[:, P_D:].reshape(B, H, H)                   # D[b, h, h2]
    season = 1.0 + 0.25 * np.sin(TWO_PI * t / 365.0)
    total = X.sum(axis=3)                             # (B, L, H)
    crowd = total / K[:, None, :]
    vigor = np.prod(1.0 / (1.0 + c[:, None, None, :] * X), axis=3)
    prev = np.concatenate([np.zeros((B, L, H, 1)), X[..., :-1]], axis=3)   # X(l, h, s - 1), 0 at s = 0
    dX = (-mu[..., None] * (1.0 + crowd[..., None]) * X
          + fec[:, None, None, :] * X[..., S - 1:S] * (F / (1.0 + F))[..., None]
          - c[:, None, None, :] * prev * X / (1.0 + total[..., None])
          + np.einsum("bhk,blks->blhs", D, X)         # in: sum_h2 D(h, h2) X(l, h2, s)
          - X * D.sum(axis=1)[:, None, :, None])       # out: X(l, h, s) sum_h2 D(h2, h)
    matured = m[:, None, None, :S - 1] * X[..., :S - 1]   # from stage s to s + 1, none from the last
    dX[..., :S - 1] -= matured
    dX[..., 1:] += matured
    dF = r[:, None, None] * season * (1.0 - F) - g[:, None, None] * F * (1.0 - vigor)
    return np.concatenate([dX.reshape(B, -1), dF.reshape(B, -1)], axis=1)


def observe(t, x, p):
    """The observables (B, 10)."""
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    B = x.shape[0]
    y = np.zeros((B, N_OBSERVABLES))
    Xr = x[:, X0:F0].reshape(B, L, H, S)
    Fr = x[:, F0:].reshape(B, L, H)
    y[:, O_ADULTS:O_PEAK] = Xr[:, :, :, S - 1].reshape(B, L * H)
    y[:, O_PEAK:O_GRAND] = Xr.max(axis=3).reshape(B, L * H)
    y[:, O_GRAND] = Xr.sum(axis=(1, 2, 3))
    y[:, O_SCARCEST] = Fr.min(axis=(1, 2))
    return y


def integrate(x0, p, t1, save_times, steps_per_unit=200, f=None):
    """Classical RK4 with a fine fixed step from t = 0: the states at the save
    times (B, n_save, n) and at t1 (B, n); f is the right-hand side (the
    fixture's by default)."""
    f = rhs if f is None else f
    x = np.atleast_2d(np.array(x0, dtype=np.float64))
    t, out = 0.0, []
    for target in list(save_times) + [t1]:
        n = max(1, int(math.ceil((target - t) * steps_per_unit)))
        h = (target - t) / n
        for _ in range(n):
            k1 = f(t, x, p)
            k2 = f(t + h / 2, x + h / 2 * k1, p)
            k3 = f(t + h / 2, x + h / 2 * k2, p)
            k4 = f(t + h, x + h * k3, p)
            x = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            t += h
        out.append(x.copy())
    return np.stack(out[:len(save_times)], axis=1), out[-1]


def integrate_with_events(x0, p, t1, save_times, events, steps_per_unit=200, f=None):
    """integrate() of an autonomous model with events at given times, each
    (time, apply) with apply(x) -> the state after it: the segments between
    event times integrated one after another, the events applied at their
    time, a save at an event's time read after it."""
    x = np.atleast_2d(np.array(x0, dtype=np.float64))
    t, out = 0.0, []
    pending = list(save_times)
    for te, apply in sorted(events, key=lambda e: e[0]) + [(t1, None)]:
        here = [s - t for s in pending if s < te]
        pending = [s for s in pending if s >= te]
        saved, x = integrate(x, p, te - t, here + [te - t], steps_per_unit, f)
        out += [saved[:, k] for k in range(len(here))]
        if apply is not None:
            x = apply(x.copy())
        t = te
    out += [x for s in pending]  # at t1
    return np.stack(out, axis=1), x


# ---- the SEIR example (examples/seir_model.hpp) ------------------------------
# States S, E, I, R; parameters beta, sigma, gamma, rho, phi; the observable
# rho sigma E (reported incidence) through a negative binomial of mean mu and
# dispersion phi; priors lognormal(log 0.5, 0.5), lognormal(log 0.25, 0.1),
# lognormal(log 0.2, 0.3), beta(2, 5), gamma(shape 2, rate 0.1).

def seir_rhs(t, x, p):
    x = np.atleast_2d(x)
    p = np.atleast_2d(p)
    S, E, I, R = x[:, 0], x[:, 1], x[:, 2], x[:, 3]
    beta, sigma, gamma = p[:, 0], p[:, 1], p[:, 2]
    inf = beta * S * I / (S + E + I + R)
    return np.stack([-inf, inf - sigma * E, sigma * E - gamma * I, gamma * I], axis=1)


def seir_terms(saved, p, counts, mask):
    """Each day's negative-binomial log-likelihood (B, n_save) at the states
    `saved` (B, n_save, 4), 0 where mask is 0."""
    p = np.atleast_2d(p)
    sigma, rho, phi = p[:, 1], p[:, 3], p[:, 4]
    lg = np.vectorize(math.lgamma)
    terms = np.zeros((saved.shape[0], len(counts)))
    for k, (y, seen) in enumerate(zip(counts, mask)):
        if not seen:
            continue
        mu = rho * sigma * saved[:, k, 1]
        terms[:, k] = (lg(y + phi) - lg(phi) - math.lgamma(y + 1.0) + phi * np.log(phi / (phi + mu))
                       + y * np.log(mu / (phi + mu)))
    return terms


def seir_log_density(saved, p, counts, mask):
    """One value per trajectory at the states `saved` (B, n_save, 4), for
    exact counts where mask is 1."""
    p = np.atleast_2d(p)
    beta, sigma, gamma, rho, phi = (p[:, j] for j in range(5))
    lp = seir_terms(saved, p, counts, mask).sum(axis=1)

    def lognormal(x, m, s):
        return -np.log(x) - math.log(s) - 0.5 * math.log(2 * math.pi) - (np.log(x) - m) ** 2 / (2 * s * s)
    lp += lognormal(beta, math.log(0.5), 0.5) + lognormal(sigma, math.log(0.25), 0.1)
    lp += lognormal(gamma, math.log(0.2), 0.3)
    lp += math.lgamma(7.0) - math.lgamma(2.0) - math.lgamma(5.0) + np.log(rho) + 4 * np.log(1 - rho)
    lp += 2 * math.log(0.1) - math.lgamma(2.0) + np.log(phi) - 0.1 * phi
    return lp
