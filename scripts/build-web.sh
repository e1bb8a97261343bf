#!/usr/bin/env bash
# Builds the front-end (web/) into static assets the binary embeds: the HTML report's script
# and the web UI's script, each one self-contained file (the charting library bundled in),
# plus the style sheet. Called by CMake (src/report/web.cmake) whenever web/ changes.
#
# Usage: scripts/build-web.sh OUT_DIR
# Needs Node.js (18 or later) and npm; installs web/'s locked packages (npm ci) the first time
# and whenever package-lock.json changes. Exits 3 with a message when Node or npm is missing.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:?usage: scripts/build-web.sh OUT_DIR}"
web="$root/web"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "build-web: Node.js and npm are needed to build the HTML report and web UI assets;" \
       "install them (scripts/install-deps.sh) and rebuild" >&2
  exit 3
fi

# npm ci only when the installed tree is older than the lockfile (it deletes node_modules).
stamp="$web/node_modules/.gpuplan-lock-stamp"
if [ ! -f "$stamp" ] || ! cmp -s "$web/package-lock.json" "$stamp"; then
  echo "build-web: npm ci (web/package-lock.json)"
  (cd "$web" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$web/package-lock.json" "$stamp"
fi

mkdir -p "$out"
(cd "$web" && node build.mjs "$out")
