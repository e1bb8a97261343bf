#!/usr/bin/env bash
# Installs the Debian packages gpuplan builds with, skipping those already present.
# Works offline except for the Debian package registry; never downloads anything else.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libtomlplusplus-dev libcli11-dev nlohmann-json3-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  openmpi-bin libopenmpi-dev  # optional at configure time: `gpuplan sweep` across MPI ranks
  python3-dev pybind11-dev python3-pytest  # optional at configure time: the Python module and its tests
  python3-pandas python3-matplotlib        # optional at run time: tables as DataFrames, docs/python.md's plot
)

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
