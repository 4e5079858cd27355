#!/usr/bin/env python3
"""The SEIR example's figure for docs/inference.md: the synthetic data
(missing days left out, right-censored days drawn as arrows at the cap), the
MAP fit's mean incidence and the 5-95% band of 200 replayed
posterior-predictive draws, from the CSV that examples/seir_fit writes.

Usage: python3 bench/plot_seir.py seir.csv OUT.png
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rows = list(csv.DictReader(open(sys.argv[1])))
day = [int(r["day"]) for r in rows]
fig, ax = plt.subplots(figsize=(8, 4.2), dpi=120)
ax.fill_between(day, [float(r["draw_q05"]) for r in rows], [float(r["draw_q95"]) for r in rows], color="#9ecae1",
                alpha=0.6, label="replayed draws at the fit, 5-95%")
ax.plot(day, [float(r["fit_mean"]) for r in rows], color="#08519c", lw=2, label="MAP fit: mean reported incidence")
obs = [r for r in rows if r["observed"] == "1" and r["right_censored"] == "0"]
ax.plot([int(r["day"]) for r in obs], [float(r["count"]) for r in obs], "o", color="#252525", ms=3.5,
        label="data (negative binomial draws)")
cens = [r for r in rows if r["observed"] == "1" and r["right_censored"] == "1"]
if cens:
    ax.plot([int(r["day"]) for r in cens], [1000.0] * len(cens), "^", color="#cb181d", ms=6,
            label='recorded as "more than 1,000"')
missing = [int(r["day"]) for r in rows if r["observed"] == "0"]
if missing:
    ax.axvspan(min(missing) - 0.5, max(missing) + 0.5, color="#bdbdbd", alpha=0.4, label="missing days")
ax.set_xlabel("day")
ax.set_ylabel("reported cases per day")
ax.set_title("SEIR fitted to censored, gappy negative binomial incidence (fluxion + NLopt L-BFGS)")
ax.legend(fontsize=8, loc="upper left")
fig.tight_layout()
fig.savefig(sys.argv[2])
print("wrote", sys.argv[2])
