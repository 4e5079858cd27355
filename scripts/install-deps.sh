#!/usr/bin/env bash
# Installs what fluxion needs to build and test on Debian 12 or Ubuntu 24.04.
# Idempotent: packages already present are left alone, and apt is only asked
# when something is missing. The CUDA toolkit is optional and never installed.
set -euo pipefail

need_meson=1.3
missing=()
have() { command -v "$1" >/dev/null 2>&1; }
meson_ok() {
  have meson || return 1
  local v; v=$(meson --version)
  [ "$(printf '%s\n%s\n' "$need_meson" "$v" | sort -V | head -n1)" = "$need_meson" ]
}
pkg_ok() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

have g++ || missing+=(g++)
have ninja || missing+=(ninja-build)
have pkg-config || missing+=(pkg-config)
have cmake || missing+=(cmake)
have git || missing+=(git)
pkg_ok libboost-dev || missing+=(libboost-dev)
# NLopt: the SEIR fit example's optimizer (built only where it is found).
pkg_ok libnlopt-dev || missing+=(libnlopt-dev)
# The Python binding layer, its tests and example: the Python headers,
# pybind11, NumPy, pytest and matplotlib (Debian 12's and Ubuntu 24.04's own).
pkg_ok python3-dev || missing+=(python3-dev)
pkg_ok pybind11-dev || missing+=(pybind11-dev)
pkg_ok python3-numpy || missing+=(python3-numpy)
pkg_ok python3-pytest || missing+=(python3-pytest)
pkg_ok python3-matplotlib || missing+=(python3-matplotlib)
# MPI: the optional distributed layer (include/fluxion/mpi/), its mpi suite,
# example and benchmark (built only where Meson finds an MPI).
pkg_ok libopenmpi-dev || missing+=(libopenmpi-dev)
pkg_ok openmpi-bin || missing+=(openmpi-bin)
catch2_ok=1
pkg-config --atleast-version=3.4 catch2-with-main 2>/dev/null || catch2_ok=0
meson_ok || missing+=(meson)
[ "$catch2_ok" = 1 ] || missing+=(catch2)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
. /etc/os-release
backports=()
if [ "${ID:-}" = debian ] && [ "${VERSION_CODENAME:-}" = bookworm ]; then
  # Debian 12 main ships Meson 1.0 and Catch2 2; backports has Meson >= 1.7 and Catch2 3.
  list=/etc/apt/sources.list.d/bookworm-backports.list
  if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    echo 'deb http://deb.debian.org/debian bookworm-backports main' | $SUDO tee "$list" >/dev/null
  fi
  backports=(-t bookworm-backports)
fi
echo "install-deps: installing ${missing[*]}" >&2
$SUDO apt-get update -qq
base=() bp=()
for p in "${missing[@]}"; do
  case "$p" in meson|catch2) bp+=("$p");; *) base+=("$p");; esac
done
[ ${#base[@]} -eq 0 ] || $SUDO apt-get install -y -qq --no-install-recommends "${base[@]}"
[ ${#bp[@]} -eq 0 ] || $SUDO apt-get install -y -qq --no-install-recommends "${backports[@]}" "${bp[@]}"
