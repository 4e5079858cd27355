#!/usr/bin/env python3
"""sha256 over the project's source files (include/, qualify/, tests/, the
Meson files), path and content, in sorted order: a hash of the source tree
that needs no git (a copy of the tree has no repository)."""
import hashlib
import pathlib
import sys

root = pathlib.Path(sys.argv[1])
h = hashlib.sha256()
files = [root / 'meson.build', root / 'meson.options']
for top in ('include', 'qualify', 'tests'):
    files += [p for p in (root / top).rglob('*') if p.is_file() and '__pycache__' not in p.parts]
for p in sorted(files):
    if p.exists():
        h.update(str(p.relative_to(root)).encode() + b'\0' + p.read_bytes() + b'\0')
print('sha256:' + h.hexdigest())
