#!/usr/bin/env python3
"""The side-by-side tables of docs/reference/performance.md, from the JSON lines of one
device run (bench/run_device.sh) and one host run (bench/run_host.sh).

    python3 bench/ratios.py [--device DIR] [--host DIR]

Prints Markdown: fluxion against the hand-written CUDA kernel, JAX and
PyTorch on the GPU (rhs at B = 2^20, sparse jac_x values at B = 16384), and
against the hand-written C++ reference and NumPy on the host (one thread and
all threads, AoS and SoA, at every B the host run measured both), and the
time of the drivers' data movement alone (rhs_no_arithmetic lines) beside
what moving the same bytes costs without fluxion (memcpy and the
hand-written movers of host-movement). A ratio
is the peer's time over fluxion's: above 1, fluxion is faster.
"""
import argparse
from collections import defaultdict
import sys

from json_lines import read_lines


def device_tables(folder):
    flx, peers = {}, {}
    for r in read_lines(folder):
        if r.get("target") == "device" and "ms" in r:
            flx[(r["bench"], r["dtype"], int(r["B"]))] = float(r["ms"])
        elif "impl" in r and "median_ms" in r:
            peers[(r["impl"], r["dtype"], int(r["B"]))] = float(r["median_ms"])
    out = ["| Model A, GPU | dtype | B | fluxion ms | peer | peer ms | peer time / fluxion time |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    B = 1 << 20
    for dt in ("f64", "f32"):
        f = flx.get(("rhs", dt, B))
        for impl, name in (("cupy", "hand-written CUDA"), ("jax", "JAX jit(vmap)"),
                           ("torch-compile", "torch.compile"), ("torch", "PyTorch eager")):
            p = peers.get((impl, dt, B))
            if f and p:
                out.append(f"| rhs | {dt} | 2^20 | {f:.3f} | {name} | {p:.3f} | **{p / f:.2f}x** |")
    B = 16384
    for dt in ("f64", "f32"):
        f = flx.get(("jac_x_sparse_values", dt, B))
        p = peers.get(("jax-jac", dt, B))
        if f and p:
            out.append(f"| sparse jac_x values | {dt} | 16384 | {f:.3f} | JAX jit(vmap(jacfwd)), dense | {p:.3f} "
                       f"| **{p / f:.2f}x** |")
    return out


def median(values):
    v = sorted(values)
    return v[len(v) // 2] if len(v) % 2 else 0.5 * (v[len(v) // 2 - 1] + v[len(v) // 2])


def host_tables(folder):
    flx, hand, numpy, copies = defaultdict(list), defaultdict(list), defaultdict(list), []
    moves = defaultdict(list)  # rhs_no_arithmetic: the drivers' data movement alone
    movers = defaultdict(list)  # host-movement: the same bytes moved by hand-written code
    for r in read_lines(folder):
        if r.get("target") == "host" and r.get("bench") == "rhs" and "layout" in r:
            flx[(r["layout"], r["dtype"], int(r["B"]), int(r.get("threads", 1)))].append(float(r["ns_per_instance"]))
        elif r.get("target") == "host" and r.get("bench") == "rhs_no_arithmetic":
            moves[(r["layout"], r["dtype"], int(r["B"]))].append(float(r["ns_per_instance"]))
        elif r.get("target") == "host" and r.get("bench") == "memcpy":
            copies.append(float(r["GBps"]))
        elif r.get("target") == "host" and r.get("bench") == "movement":
            movers[(r["mover"], r["dtype"], int(r["B"]))].append(float(r["ns_per_instance"]))
        elif str(r.get("impl", "")).startswith("host-hand-"):
            layout = r["impl"].split("-")[-1]
            for dt in ("f64", "f32"):
                hand[(layout, dt, int(r["B"]))].append(float(r[f"{dt}_ns_per_instance"]))
        elif r.get("impl") == "numpy" and "median_ms" in r:
            numpy[(r["dtype"], int(r["B"]))].append(float(r["median_ms"]) * 1e6 / int(r["B"]))
    flx = {k: median(v) for k, v in flx.items()}
    runs = {k: len(v) for k, v in hand.items()}
    hand = {k: median(v) for k, v in hand.items()}
    numpy = {k: median(v) for k, v in numpy.items()}
    moves = {k: median(v) for k, v in moves.items()}
    movers = {k: median(v) for k, v in movers.items()}
    bandwidth = median(copies) if copies else None
    threads = max([t for (*_, t) in flx] or [1])

    def ns(v):
        return f"{v:.0f} ns" if v else "—"

    def ratio(peer, mine):
        return f"**{peer / mine:.2f}x**" if peer and mine else "—"

    # SoA: rows of B values; SoA pitched: rows of fx::soa_pitch(B) values.
    out = ["| Model A rhs, one core | dtype | B | fluxion AoS | fluxion SoA | fluxion SoA pitched | hand AoS "
           "| hand SoA | NumPy | fluxion AoS / hand AoS | fluxion SoA / hand AoS | fluxion SoA pitched / hand AoS "
           "| fluxion / NumPy |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for B in sorted({B for (_, _, B) in hand}):
        for dt in ("f64", "f32"):
            aos, soa = flx.get(("aos", dt, B, 1)), flx.get(("soa", dt, B, 1))
            pitched = flx.get(("soa-pitch", dt, B, 1))
            ha, hs, npy = hand.get(("aos", dt, B)), hand.get(("soa", dt, B)), numpy.get((dt, B))
            if not (soa and ha):
                continue
            best = min(v for v in (aos, soa) if v)
            out.append(f"| rhs | {dt} | {B} | {ns(aos)} | {ns(soa)} | {ns(pitched)} | {ns(ha)} | {ns(hs)} | {ns(npy)} "
                       f"| {ratio(ha, aos)} | {ratio(ha, soa)} | {ratio(ha, pitched)} | {ratio(npy, best)} |")
    out.append("")
    out.append(f"(medians over {max(runs.values() or [1])} alternating runs where both sides ran more than once; "
               "a ratio above 1: fluxion is faster)")
    # At the batch sizes NumPy ran too (beyond L2). In cache, structure-of-arrays
    # batches are evaluated where they lie: their data movement is the
    # evaluation's own loads and stores, which the stand-in model leaves out.
    main = {B for (_, B) in numpy}
    if moves and main:
        out += ["", "| Model A rhs, one core: the driver's data movement alone | layout | dtype | B | no arithmetic "
                "| Model A | half the hand AoS time (2x) |", "| --- | --- | --- | --- | --- | --- | --- |"]
        for (layout, dt, B), v in sorted(moves.items(), key=lambda kv: (kv[0][2], kv[0][0], kv[0][1])):
            if B not in main:
                continue
            ha = hand.get(("aos", dt, B))
            out.append(f"| rhs | {layout.upper()} | {dt} | {B} | {ns(v)} | {ns(flx.get((layout, dt, B, 1)))} "
                       f"| {ns(ha / 2 if ha else None)} |")
    # What bounds the structure-of-arrays ratio beyond L2: the same bytes
    # (206 values in, 128 out an instance) moved by memcpy at its median
    # rate, by a hand-written mover in one stream (AoS order), and by the best
    # hand-written mover in SoA order, against half the hand-written AoS time.
    if movers:
        out += ["", "| Model A rhs, one core: moving its bytes | dtype | B | half the hand AoS time (2x) "
                "| memcpy of the bytes | hand-written mover, one stream | best hand-written SoA mover "
                "| fluxion SoA, no arithmetic | fluxion SoA |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for B in sorted({B for (_, _, B) in movers}):
            for dt, size in (("f64", 8), ("f32", 4)):
                ha = hand.get(("aos", dt, B))
                soa = [(v, m) for (m, d, b), v in movers.items() if d == dt and b == B and m.startswith("soa")]
                best = min(soa) if soa else None
                copy = (206 + 128) * size / bandwidth if bandwidth else None
                out.append(f"| rhs | {dt} | {B} | {ns(ha / 2 if ha else None)} | {ns(copy)} "
                           f"| {ns(movers.get(('one-stream', dt, B)))} "
                           f"| {ns(best[0]) + ' (' + best[1] + ')' if best else '—'} "
                           f"| {ns(moves.get(('soa', dt, B)))} | {ns(flx.get(('soa', dt, B, 1)))} |")
    if threads > 1:
        out += ["", f"| Model A rhs, 1 -> {threads} threads | layout | dtype | B | 1 thread | {threads} threads "
                "| speed-up |", "| --- | --- | --- | --- | --- | --- | --- |"]
        for (layout, dt, B, t), v in sorted(flx.items(), key=lambda kv: (kv[0][2], kv[0][0], kv[0][1])):
            if t == 1 and (layout, dt, B, threads) in flx:
                w = flx[(layout, dt, B, threads)]
                out.append(f"| rhs | {layout.upper()} | {dt} | {B} | {ns(v)} | {ns(w)} | {v / w:.2f}x |")
    if bandwidth:
        out += ["", f"One thread's memory bandwidth (memcpy, read + write, median of {len(copies)}): "
                f"{bandwidth:.1f} GB/s."]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device")
    ap.add_argument("--host")
    a = ap.parse_args()
    if not a.device and not a.host:
        ap.print_help()
        return 2
    if a.device:
        print("\n".join(device_tables(a.device)))
        print()
    if a.host:
        print("\n".join(host_tables(a.host)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
