#!/usr/bin/env python3
"""Compile-fail harness.

usage: check.py SOURCE -- COMPILER [COMPILER ARGS...]

Runs COMPILER ARGS -std=c++20 -fsyntax-only SOURCE and checks it against the
directives written as comment lines in SOURCE:

  // expect: TEXT     compilation must FAIL, and TEXT must appear in the compiler
                      output (literal, case-sensitive substring). May be repeated:
                      every TEXT must appear.
  // expect-success   compilation must SUCCEED (a control case for the harness).

Prints PASS or FAIL with the reason; exits 0 on PASS, 1 on FAIL.
"""
import os
import re
import shlex
import subprocess
import sys

MAX_LINES = 300  # compiler output shown on failure (template errors can be long)


def fail(name, reason, output=None):
    print(f"FAIL {name}: {reason}")
    if output is not None:
        lines = output.splitlines()
        print("---- compiler output" + (f" (first {MAX_LINES} of {len(lines)} lines)"
                                        if len(lines) > MAX_LINES else "") + " ----")
        print("\n".join(lines[:MAX_LINES]))
        print("---- end of compiler output ----")
    return 1


def main(argv):
    if len(argv) < 4 or argv[2] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    source, command = argv[1], argv[3:]
    name = os.path.basename(source)

    with open(source, encoding="utf-8") as f:
        text = f.read()
    expects = [m.group(1).strip()
               for m in re.finditer(r"^\s*//\s*expect:(.*)$", text, re.MULTILINE)]
    success = re.search(r"^\s*//\s*expect-success\s*$", text, re.MULTILINE) is not None

    if not expects and not success:
        return fail(name, "no '// expect: <text>' or '// expect-success' line in the file")
    if expects and success:
        return fail(name, "has both '// expect:' and '// expect-success'")
    if any(e == "" for e in expects):
        return fail(name, "an '// expect:' line has no text")

    full = command + ["-std=c++20", "-fsyntax-only", "-fdiagnostics-color=never", source]
    # Plain ASCII quotes and English messages, whatever the user's locale.
    env = dict(os.environ, LC_ALL="C", LANG="C")
    env.pop("LANGUAGE", None)
    print("command:", shlex.join(full))
    try:
        proc = subprocess.run(full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              env=env, text=True, errors="replace")
    except OSError as e:
        return fail(name, f"cannot run the compiler: {e}")
    output = proc.stdout

    if success:
        if proc.returncode != 0:
            return fail(name, f"expected to compile, but the compiler exited with "
                              f"{proc.returncode}", output)
        print(f"PASS {name}: compiled, as expected")
        return 0

    if proc.returncode == 0:
        return fail(name, "expected a compile error, but it compiled", output)
    missing = [e for e in expects if e not in output]
    if missing:
        return fail(name, "compilation failed, but the output lacks: "
                    + "; ".join(repr(m) for m in missing), output)
    print(f"PASS {name}: failed to compile, with all {len(expects)} expected text(s): "
          + "; ".join(repr(e) for e in expects))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
