#!/usr/bin/env bash
# Installs the Debian packages gpuplan builds with, skipping those already present.
# Works offline except for the Debian package registry; never downloads anything else.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libtomlplusplus-dev libcli11-dev nlohmann-json3-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  openmpi-bin libopenmpi-dev  # optional at configure time: `gpuplan sweep` across MPI ranks
  libcpp-httplib-dev          # `gpuplan serve` (optional at configure time: without it serve says so)
  curl                        # the serve.http test; wrk for the load test in docs/performance.md
  chromium                    # the browser tests (web.browser: headless, driven by playwright-core)
  python3-dev pybind11-dev python3-pytest  # optional at configure time: the Python module and its tests
  python3-pandas python3-matplotlib        # optional at run time: tables as DataFrames, docs/python.md's plot
)
# Node.js and npm build the HTML report and web UI assets (web/, scripts/build-web.sh); a
# machine that already has a Node.js (e.g. from another repository) keeps it, else Debian's.
if ! command -v node >/dev/null 2>&1; then packages+=(nodejs); fi
if ! command -v npm >/dev/null 2>&1; then packages+=(npm); fi

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
