#!/usr/bin/env python3
"""Reference trajectories of the Lorenz system for tests/solve (independent of
fluxion): mpmath's Taylor-series integrator (mpmath.odefun) at 40 significant
digits, printed to 20. Eight trajectories (initial states and parameters
below, around the classical sigma = 10, rho = 28, beta = 8/3), states at
t = 0.1, 0.2, ..., 1.0.

    python3 tests/solve/data/make_lorenz_reference.py > tests/solve/data/lorenz_t1.csv

Columns: trajectory, sigma, rho, beta, x0, y0, z0, t, x, y, z.
"""
import mpmath

mpmath.mp.dps = 40

TRAJECTORIES = [  # sigma, rho, beta, x0, y0, z0
    ("10", "28", "8/3", "1", "1", "1"),
    ("10", "28", "8/3", "-8", "7", "27"),
    ("5", "20", "2", "0.5", "1.5", "0.75"),
    ("15", "30", "3", "1.25", "0.5", "1.0"),
    ("12.5", "24", "2.5", "1.5", "1.5", "0.5"),
    ("7.5", "26", "2.25", "0.75", "1.25", "1.25"),
    ("10", "99.96", "8/3", "0", "1", "0"),
    ("14", "21", "2.75", "-1", "-1", "2"),
]


def number(text):
    if "/" in text:
        a, b = text.split("/")
        return mpmath.mpf(a) / mpmath.mpf(b)
    return mpmath.mpf(text)


print("trajectory,sigma,rho,beta,x0,y0,z0,t,x,y,z")
for j, row in enumerate(TRAJECTORIES):
    s, r, b, x0, y0, z0 = (number(v) for v in row)
    f = mpmath.odefun(lambda t, u: [s * (u[1] - u[0]), u[0] * (r - u[2]) - u[1], u[0] * u[1] - b * u[2]],
                      0, [x0, y0, z0])
    for k in range(1, 11):
        t = mpmath.mpf(k) / 10
        u = f(t)
        print(",".join([str(j)] + [mpmath.nstr(v, 20) for v in (s, r, b, x0, y0, z0)] + [mpmath.nstr(t, 20)] +
                       [mpmath.nstr(v, 20) for v in u]))
