#!/usr/bin/env bash
# Installed-consumer test (suite 'install'), run by `meson test` after the build.
#
#   check.sh BUILDDIR THISDIR PREFIX DATADIR VERSION [CCCL_FLAGS]
#
# CCCL_FLAGS: the libcu++ flags fluxion.pc must carry ("-isystem DIR
# -DFLUXION_HAVE_LIBCUDACXX=1" when libcu++ was found at configure time, else
# empty, and then fluxion.pc must carry none).
#
# 1. meson install into a temporary DESTDIR (no rebuild, fluxion's files only);
# 2. fluxion.pc: relocatable (prefix from ${pcfiledir}), so pkg-config run on
#    the staged tree, with no PKG_CONFIG_SYSROOT_DIR, gives its include dir;
#    Cflags carry -std=c++20 and exactly the expected libcu++ flags;
# 3. a consumer compiled by hand with `pkg-config --cflags --libs fluxion`
#    alone (no -std of its own): C++20 from the .pc file, and fx::view is
#    cuda::std::mdspan exactly when the libcu++ flags are there;
# 4. a Meson project finds it with dependency('fluxion') through pkg-config;
# 5. a CMake project finds it with find_package(fluxion CONFIG REQUIRED);
# 6. the staged tree moved to another directory: pkg-config follows it and
#    the hand-compiled consumer builds again from the new place.
# Each consumer is built and run and must print "fluxion VERSION".
set -euo pipefail

build=$1 here=$2 prefix=$3 datadir=$4 version=$5 cccl=${6:-}
meson=${MESON:-meson}
pkgconfig=${PKG_CONFIG:-pkg-config}
cxx=${CXX:-c++}

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

fail() { echo "FAIL: $*" >&2; exit 1; }
# check_pc PCDIR TREE: pkg-config on PCDIR resolves into TREE, with the flags expected.
check_pc() {
  local pcdir=$1 tree=$2 cflags incdir real_inc real_tree
  grep -q '^prefix=${pcfiledir}/' "$pcdir/fluxion.pc" || fail "fluxion.pc is not relocatable (prefix not from \${pcfiledir})"
  cflags=$(PKG_CONFIG_PATH=$pcdir PKG_CONFIG_SYSROOT_DIR= "$pkgconfig" --cflags fluxion)
  echo "pkg-config --cflags fluxion: $cflags"
  incdir=$(PKG_CONFIG_PATH=$pcdir PKG_CONFIG_SYSROOT_DIR= "$pkgconfig" --variable=includedir fluxion)
  [ -f "$incdir/fluxion/fluxion.hpp" ] || fail "includedir '$incdir' holds no fluxion/fluxion.hpp"
  real_inc=$(cd "$incdir" && pwd -P)
  real_tree=$(cd "$tree" && pwd -P)
  case $real_inc/ in "$real_tree"/*) ;; *) fail "includedir '$real_inc' lies outside '$real_tree'" ;; esac
  case " $cflags " in *" -std=c++20 "*) ;; *) fail "Cflags lack -std=c++20: '$cflags'" ;; esac
  if [ -n "$cccl" ]; then
    case " $cflags " in *" $cccl "*) ;; *) fail "Cflags lack the libcu++ flags '$cccl': '$cflags'" ;; esac
  else
    case $cflags in *FLUXION_HAVE_LIBCUDACXX*) fail "Cflags carry libcu++ flags, but none was found: '$cflags'" ;; esac
  fi
}
# build_by_hand PCDIR OUT: compile the pkg-config consumer with the .pc flags alone, run it.
build_by_hand() {
  local pcdir=$1 app=$2 cflags libs out want_view
  cflags=$(PKG_CONFIG_PATH=$pcdir PKG_CONFIG_SYSROOT_DIR= "$pkgconfig" --cflags fluxion)
  libs=$(PKG_CONFIG_PATH=$pcdir PKG_CONFIG_SYSROOT_DIR= "$pkgconfig" --libs fluxion)
  # shellcheck disable=SC2086  # the flags are words
  $cxx $cflags "$here/pkgconfig_consumer/main.cpp" -o "$app" $libs
  out=$("$app")
  echo "$out"
  want_view=fallback
  [ -z "$cccl" ] || want_view=cuda::std::mdspan
  [ "$out" = "fluxion $version: dx = -1; view: $want_view" ] ||
    fail "$app printed '$out', expected 'fluxion $version: dx = -1; view: $want_view'"
}

step "fluxion.pc through pkg-config, on the DESTDIR staging tree"
check_pc "$data/pkgconfig" "$dest"

step "consumer compiled with the pkg-config flags alone"
build_by_hand "$data/pkgconfig" "$tmp/pkgconfig-app"

step "Meson consumer (pkg-config)"
# fluxion.pc is relocatable: its paths follow it into the DESTDIR (no sysroot).
PKG_CONFIG_PATH=$data/pkgconfig PKG_CONFIG_SYSROOT_DIR= \
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

step "the staged tree moved: pkg-config follows it"
moved=$tmp/moved
mv "$dest" "$moved"
check_pc "$moved${data#"$dest"}/pkgconfig" "$moved"
build_by_hand "$moved${data#"$dest"}/pkgconfig" "$tmp/pkgconfig-app-moved"

step "PASS: every consumer built and ran against the installed tree"
