#!/usr/bin/env bash
# Installed-consumer test (suite 'install'), run by `meson test` after the build.
#
#   check.sh BUILDDIR THISDIR PREFIX DATADIR VERSION
#
# 1. meson install into a temporary DESTDIR (no rebuild, fluxion's files only);
# 2. a Meson project finds it with dependency('fluxion') through pkg-config;
# 3. a CMake project finds it with find_package(fluxion CONFIG REQUIRED).
# Each consumer is built and run and must print "fluxion VERSION".
set -euo pipefail

build=$1 here=$2 prefix=$3 datadir=$4 version=$5
meson=${MESON:-meson}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fluxion-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/destdir
root=$dest$prefix
case $datadir in
  /*) data=$dest$datadir ;;
  *) data=$root/$datadir ;;
esac

step() { printf '\n== %s\n' "$*"; }
expect_version() {  # $1: program to run; it evaluates dx = -k x at x = 2, k = 0.5
  local out
  out=$("$1")
  echo "$out"
  if [ "$out" != "fluxion $version: dx = -1" ]; then
    echo "FAIL: $1 printed '$out', expected 'fluxion $version: dx = -1'" >&2
    exit 1
  fi
}

step "meson install --destdir $dest"
"$meson" install -C "$build" --destdir "$dest" --no-rebuild --quiet --skip-subprojects
for f in "$data/pkgconfig/fluxion.pc" "$data/cmake/fluxion/fluxionConfig.cmake" \
         "$data/cmake/fluxion/fluxionConfigVersion.cmake"; do
  [ -f "$f" ] || { echo "FAIL: not installed: ${f#"$dest"}" >&2; exit 1; }
done
cat "$data/pkgconfig/fluxion.pc"

step "Meson consumer (pkg-config)"
# pkg-config reports paths under PREFIX; the sysroot maps them into the DESTDIR.
PKG_CONFIG_PATH=$data/pkgconfig PKG_CONFIG_SYSROOT_DIR=$dest \
  "$meson" setup "$tmp/meson-consumer" "$here/meson_consumer" --wrap-mode=nodownload
grep -q -- "-I$dest/" "$tmp/meson-consumer/compile_commands.json" ||
  { echo "FAIL: the Meson consumer does not include from the DESTDIR" >&2; exit 1; }
"$meson" compile -C "$tmp/meson-consumer"
expect_version "$tmp/meson-consumer/app"

step "CMake consumer (find_package)"
cmake -S "$here/cmake_consumer" -B "$tmp/cmake-consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$root" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
found_dir=$(sed -n 's/^fluxion_DIR:[A-Z]*=//p' "$tmp/cmake-consumer/CMakeCache.txt")
case $found_dir in
  "$dest"/*) echo "fluxion_DIR=$found_dir" ;;
  *) echo "FAIL: CMake found fluxion outside the DESTDIR: '$found_dir'" >&2; exit 1 ;;
esac
cmake --build "$tmp/cmake-consumer"
expect_version "$tmp/cmake-consumer/app"

step "PASS: both consumers built and ran against the installed tree"
