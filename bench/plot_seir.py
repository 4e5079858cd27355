#!/usr/bin/env python3
"""The SEIR example's figure for docs/guide/fitting.md, as SVG (no plotting
library needed): the synthetic data (missing days shaded, right-censored
days drawn as triangles at the cap), the MAP fit's mean reported incidence
and the 5-95% band of 200 replayed posterior-predictive draws, from the CSV
that examples/seir_fit writes.

Usage: python3 bench/plot_seir.py seir.csv OUT.svg
"""
import csv
import sys

rows = list(csv.DictReader(open(sys.argv[1])))
W, H = 820, 430
left, right, top, bottom = 70, 20, 40, 50
days = [int(r["day"]) for r in rows]
ymax = max(max(float(r["draw_q95"]) for r in rows), max(float(r["count"]) for r in rows)) * 1.08
ymax = ((int(ymax) // 200) + 1) * 200
x0, x1 = 0, max(days) + 1


def X(d):
    return left + (d - x0) / (x1 - x0) * (W - left - right)


def Y(v):
    return H - bottom - v / ymax * (H - top - bottom)


out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
       'font-family="sans-serif" font-size="12">', f'<rect width="{W}" height="{H}" fill="white"/>']
missing = [int(r["day"]) for r in rows if r["observed"] == "0"]
if missing:
    out.append(f'<rect x="{X(min(missing) - 0.5):.1f}" y="{top}" width="{X(max(missing) + 0.5) - X(min(missing) - 0.5):.1f}" '
               f'height="{H - top - bottom}" fill="#d9d9d9"/>')
# Axes and grid.
for v in range(0, ymax + 1, 200):
    out.append(f'<line x1="{left}" x2="{W - right}" y1="{Y(v):.1f}" y2="{Y(v):.1f}" stroke="#eeeeee"/>')
    out.append(f'<text x="{left - 6}" y="{Y(v) + 4:.1f}" text-anchor="end">{v}</text>')
for d in range(0, x1 + 1, 10):
    out.append(f'<text x="{X(d):.1f}" y="{H - bottom + 16}" text-anchor="middle">{d}</text>')
out.append(f'<line x1="{left}" x2="{W - right}" y1="{H - bottom}" y2="{H - bottom}" stroke="black"/>')
out.append(f'<line x1="{left}" x2="{left}" y1="{top}" y2="{H - bottom}" stroke="black"/>')
out.append(f'<text x="{(left + W - right) / 2}" y="{H - 12}" text-anchor="middle">day</text>')
out.append(f'<text x="18" y="{(top + H - bottom) / 2}" text-anchor="middle" '
           f'transform="rotate(-90 18 {(top + H - bottom) / 2})">reported cases per day</text>')
# Band of the replayed draws, then the fit.
band = [(X(int(r["day"])), Y(float(r["draw_q95"]))) for r in rows] + \
       [(X(int(r["day"])), Y(float(r["draw_q05"]))) for r in reversed(rows)]
out.append('<polygon fill="#9ecae1" fill-opacity="0.7" points="' + " ".join(f"{a:.1f},{b:.1f}" for a, b in band) + '"/>')
out.append('<polyline fill="none" stroke="#08519c" stroke-width="2" points="' +
           " ".join(f"{X(int(r['day'])):.1f},{Y(float(r['fit_mean'])):.1f}" for r in rows) + '"/>')
for r in rows:
    if r["observed"] != "1":
        continue
    x = X(int(r["day"]))
    if r["right_censored"] == "1":
        y = Y(1000.0)
        out.append(f'<polygon fill="#cb181d" points="{x:.1f},{y - 6:.1f} {x - 5:.1f},{y + 3:.1f} {x + 5:.1f},{y + 3:.1f}"/>')
    else:
        out.append(f'<circle cx="{x:.1f}" cy="{Y(float(r["count"])):.1f}" r="2.6" fill="#252525"/>')
# Legend and title.
legend = [('<rect x="0" y="-9" width="18" height="10" fill="#9ecae1"/>', "replayed draws at the fit, 5-95% (200 keyed streams)"),
          ('<line x1="0" x2="18" y1="-4" y2="-4" stroke="#08519c" stroke-width="2"/>', "MAP fit: mean reported incidence"),
          ('<circle cx="9" cy="-4" r="2.6" fill="#252525"/>', "data: negative binomial draws"),
          ('<polygon fill="#cb181d" points="9,-10 4,-1 14,-1"/>', 'recorded as "more than 1,000" (right-censored)'),
          ('<rect x="0" y="-9" width="18" height="10" fill="#d9d9d9"/>', "missing days")]
for k, (mark, text) in enumerate(legend):
    y = top + 14 + 17 * k
    out.append(f'<g transform="translate({left + 12},{y})">{mark}<text x="26" y="0">{text}</text></g>')
out.append(f'<text x="{left}" y="22" font-size="14">SEIR fitted to censored, gappy negative binomial incidence '
           '(fluxion gradients + NLopt L-BFGS)</text>')
out.append("</svg>")
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("wrote", sys.argv[2])
