#!/usr/bin/env python3
"""Reference trajectories of the stiff problems for tests/solve (independent of
fluxion): SciPy's Radau IIA (order 5) with the analytic Jacobian at
rtol 1e-12 (atol below), needs NumPy and SciPy.

    python3 tests/solve/data/make_stiff_reference.py tests/solve/data [SHIPPED.npy]

robertson_t1e5.csv: Robertson's kinetics, y0 = (1, 0, 0), the first 16
    rate-constant sets of the peers' ensemble (../shared/peers/stiff_peers.py:
    (0.04, 3e7, 1e4) * uniform(0.5, 1.5)^3, NumPy default_rng(7), row-major
    (N, 3) draw), states at the peers' 20 save times (10^-4 .. 10^5, log
    spaced); atol 1e-16. With SHIPPED (the peers' Radau 1e-10 reference,
    robertson_ref_seed7_n256_radau1e-10.npy) the largest relative difference
    from it is printed.
van_der_pol_mu1000.csv: y1' = y2, y2' = ((1 - y1^2) y2 - y1) / eps with
    eps = 1e-6 (mu = 1000), y0 = (2, 0) (the IVP test set's VDPOL), states at
    t = 0.2, 0.4, ..., 2.0; atol 1e-12. The value at t = 2 is printed beside
    the test set's.
Columns: trajectory, parameters..., t, states...
"""
import os
import sys

import numpy as np
from scipy.integrate import solve_ivp

out_dir = sys.argv[1]
shipped = sys.argv[2] if len(sys.argv) > 2 else None

# --- Robertson
TS = np.logspace(-4, 5, 20)
K = np.array([0.04, 3e7, 1e4]) * np.random.default_rng(7).uniform(0.5, 1.5, (256, 3))


def rober(t, y, k):
    r1, r2, r3 = k[0] * y[0], k[1] * y[1] * y[1], k[2] * y[1] * y[2]
    return [-r1 + r3, r1 - r2 - r3, r2]


def rober_jac(t, y, k):
    return [[-k[0], k[2] * y[2], k[2] * y[1]],
            [k[0], -2 * k[1] * y[1] - k[2] * y[2], -k[2] * y[1]],
            [0.0, 2 * k[1] * y[1], 0.0]]


rows, ours = [], []
for j in range(16):
    k = K[j]
    s = solve_ivp(rober, (0.0, 1e5), [1.0, 0.0, 0.0], method="Radau", rtol=1e-12, atol=1e-16, args=(k,),
                  jac=rober_jac, t_eval=TS)
    assert s.status == 0, s.message
    ours.append(s.y.T)
    for i, t in enumerate(TS):
        rows.append(f"{j},{k[0]:.17g},{k[1]:.17g},{k[2]:.17g},{t:.17g}," + ",".join(f"{v:.17g}" for v in s.y[:, i]))
with open(os.path.join(out_dir, "robertson_t1e5.csv"), "w") as f:
    f.write("trajectory,k1,k2,k3,t,y1,y2,y3\n" + "\n".join(rows) + "\n")
if shipped:
    ref = np.load(shipped)[:16]
    rel = np.abs(np.stack(ours) - ref) / np.maximum(np.abs(ref), 1e-12)
    print("robertson: max relative difference from the shipped Radau 1e-10 reference, per state:",
          rel.max(axis=(0, 1)))

# --- Van der Pol, mu = 1000
eps = 1e-6
ts = np.linspace(0.2, 2.0, 10)
s = solve_ivp(lambda t, y: [y[1], ((1 - y[0] ** 2) * y[1] - y[0]) / eps], (0.0, 2.0), [2.0, 0.0], method="Radau",
              rtol=1e-12, atol=1e-12, jac=lambda t, y: [[0, 1], [(-2 * y[0] * y[1] - 1) / eps, (1 - y[0] ** 2) / eps]],
              t_eval=ts)
assert s.status == 0, s.message
with open(os.path.join(out_dir, "van_der_pol_mu1000.csv"), "w") as f:
    f.write("trajectory,eps,t,y1,y2\n")
    for i, t in enumerate(ts):
        f.write(f"0,{eps:.17g},{t:.17g},{s.y[0, i]:.17g},{s.y[1, i]:.17g}\n")
print("van der pol at t = 2:", s.y[:, -1], "test set: 1.706167732170483, -0.8928097010248125")
