#!/usr/bin/env python3
"""A/B compile cost of the vector-host fixture (bench/compile_scaling/) for
several include trees, each unit compiled REPEAT times, WORKERS at once, in
an interleaved order, so that every tree sees the same machine. Reports the
median CPU seconds (user + sys of the compiler and its children, from
wait4) and the peak RSS of each (tree, compiler, entry point).

Use it to decide whether a change to the headers pays: on this 2-core
development VM a unit's time moves by tens of percent from one minute to the
next (the same nvcc unit took 24 and 40 s within the hour), so one run each
decides nothing; on a many-core machine (the device tool's, 16 cores) with
REPEAT=5 the columns of one invocation are comparable. Columns from
different invocations (or machines) are not.

  python3 bench/compile_ab.py OUT.json REPEAT WORKERS name=include_dir ...
  ENTRIES="jac_x_values jac_p_values" python3 bench/compile_ab.py ...
  COMPILERS=g++ python3 bench/compile_ab.py ...     (or nvcc; default both)

Run from the repository root (the fixture is compiled by
bench/compile_scaling/compile_vh.sh, as bench/compile_scaling.sh does);
an older tree's headers: mkdir -p /tmp/old && git archive REV include | tar -x -C /tmp/old
then old=/tmp/old/include. Needs g++ and nvcc (CXX, NVCC override them).
"""
import concurrent.futures as cf
import json
import os
import statistics
import subprocess
import sys

ALL = "none rhs observe jac_x_values jac_p_values obs_jac_x_values obs_jac_p_values jvp_x jvp_p"


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    out, repeat, workers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    trees = [a.split("=", 1) for a in sys.argv[4:]]
    entries = os.environ.get("ENTRIES", ALL).split()
    compilers = os.environ.get("COMPILERS", "g++ nvcc").split()
    # The fixture's compile command, the one bench/compile_scaling.sh runs
    # (CXX and NVCC, read by it, override the compilers).
    script = "bench/compile_scaling/compile_vh.sh"

    def command(compiler, inc, entry, obj):
        return ["bash", script, compiler, entry, obj, inc]

    def run(job):
        name, inc, compiler, entry, r = job
        obj = f"/tmp/compile_ab_{os.getpid()}_{name}_{compiler}_{entry}_{r}.o"
        p = subprocess.Popen(command(compiler, inc, entry, obj), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        log = p.stdout.read()
        _, status, usage = os.wait4(p.pid, 0)
        if os.path.exists(obj):
            os.remove(obj)
        ok = os.waitstatus_to_exitcode(status) == 0
        return job, ok, usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024, log.decode(errors="replace")[-600:]

    # Repeat r of every (entry, compiler, tree) before repeat r + 1: trees interleaved.
    jobs = [(n, i, c, e, r) for r in range(repeat) for e in entries for c in compilers for n, i in trees]
    results = {}
    failed = False
    with cf.ThreadPoolExecutor(workers) as ex:
        for (n, i, c, e, r), ok, cpu, rss, log in ex.map(run, jobs):
            if not ok:
                failed = True
                print(f"FAILED: {n} {c} {e}\n{log}", file=sys.stderr)
            results.setdefault((n, c, e), []).append((cpu if ok else float("nan"), rss))
    rows = [{"tree": n, "compiler": c, "entry": e, "cpu_s_median": round(statistics.median(t for t, _ in v), 2),
             "cpu_s": [round(t, 2) for t, _ in v], "peak_mb": max(m for _, m in v)}
            for (n, c, e), v in sorted(results.items())]
    with open(out, "w") as f:
        json.dump(rows, f, indent=1)
    cell = {(r["tree"], r["compiler"], r["entry"]): r for r in rows}
    for c in compilers:
        print(f"{c + ': entry':20s}" + "".join(f"{n:>16s}" for n, _ in trees))
        for e in entries:
            print(f"  {e:18s}" + "".join(f"{cell[n, c, e]['cpu_s_median']:9.2f}s {cell[n, c, e]['peak_mb']:4d}MB"
                                         for n, _ in trees))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
