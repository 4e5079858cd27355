#!/usr/bin/env python3
"""Builds and runs the second executable of one generated source (suite 'generated').

usage: run_extra.py SOURCE OUTDIR -- COMPILER [ARGS...]

Compiles SOURCE with -DGEN_EXTRA=1 (fluxion compiled for std::complex<double>,
and the host batch drivers fx::host::rhs / fx::host::observe over SoA and AoS
batches, for every third model; see check.hpp) into OUTDIR, then runs it.
It is compiled here, when the test runs, and not by the build: a model that
fluxion fails to compile in these configurations is a failure of this test
(printed with the models the errors point at), not a broken build.
Exits 0 when it compiles and every check passes, 1 otherwise.
"""
import os
import re
import subprocess
import sys

MAX_ERRORS = 20


def models_by_line(source_lines):
    """Line number (1-based) -> model index, for the model namespaces and the s.run<...> lines."""
    owner = {}
    current = None
    for n, line in enumerate(source_lines, 1):
        m = re.match(r"namespace g(\d+) \{", line)
        if m:
            current = int(m.group(1))
        if current is not None:
            owner[n] = current
        if re.match(r"}  // namespace g\d+", line):
            current = None
        m = re.search(r"s\.run<g(\d+)::", line)
        if m:
            owner[n] = int(m.group(1))
    return owner


def fluxion_source(source_lines, index):
    out, inside = [], False
    for line in source_lines:
        if line.startswith(f"namespace g{index:04d} {{"):
            inside = True
            continue
        if inside and line.startswith("template <class T>"):
            break
        if inside:
            out.append(line)
    return "\n".join(out).strip()


def main(argv):
    if len(argv) < 5 or argv[3] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    source, outdir, command = argv[1], argv[2], argv[4:]
    name = os.path.splitext(os.path.basename(source))[0] + "_extra"
    os.makedirs(outdir, exist_ok=True)
    exe = os.path.join(outdir, name)
    here = os.path.dirname(os.path.abspath(__file__))
    full = command + ["-std=c++20", "-O0", "-DGEN_EXTRA=1", "-I" + here, "-fdiagnostics-color=never",
                      source, "-o", exe, "-pthread"]
    env = dict(os.environ, LC_ALL="C", LANG="C")
    env.pop("LANGUAGE", None)
    r = subprocess.run(full, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        with open(source, encoding="utf-8") as f:
            lines = f.read().splitlines()
        owner = models_by_line(lines)
        text = r.stdout + r.stderr
        involved = []
        for m in re.finditer(re.escape(os.path.basename(source)) + r":(\d+):", text):
            k = owner.get(int(m.group(1)))
            if k is not None and k not in involved:
                involved.append(k)
        errors = [l for l in text.splitlines() if "error:" in l]
        print(f"FAIL {name}: fluxion did not compile it ({len(errors)} error lines)")
        for l in errors[:MAX_ERRORS]:
            print("  " + (l if len(l) < 400 else l[:400] + " ..."))
        seed = re.search(r"of seed (\d+)", lines[0])
        seed = seed.group(1) if seed else "1"
        print(f"models the errors point at: {', '.join(map(str, involved)) or '(none found)'}")
        for k in involved:
            print(f"\n=== generated model {k} (python3 tests/generated/gen.py --show {k} --seed {seed})\n"
                  f"{fluxion_source(lines, k)}")
        return 1
    run = subprocess.run([exe])
    return 0 if run.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
