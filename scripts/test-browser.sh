#!/usr/bin/env bash
# The browser tests (web/tests/, ctest web.browser): Debian's Chromium driven by playwright-core.
# Usage: scripts/test-browser.sh GPUPLAN [SCREENSHOT_DIR]
# Exits 77 (ctest: skipped) with the reason when Chromium, Node or the front-end packages are
# missing, or the binary was built without the web assets; scripts/install-deps.sh installs them.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
gpuplan="$(cd "$(dirname "${1:?usage: test-browser.sh GPUPLAN [SCREENSHOT_DIR]}")" && pwd)/$(basename "$1")"
chromium="${CHROMIUM:-/usr/bin/chromium}"
skip() { echo "SKIP web.browser: $*"; exit 77; }
[ -x "$chromium" ] || skip "no Chromium at $chromium (apt-get install chromium, or scripts/install-deps.sh)"
command -v node >/dev/null || skip "no Node.js (scripts/install-deps.sh)"
[ -d "$root/web/node_modules/playwright-core" ] || skip "web/node_modules has no playwright-core (the build runs npm ci in web/)"
if "$gpuplan" serve --port 65536 2>&1 | grep -q "built without"; then skip "$("$gpuplan" serve --port 65536 2>&1 | head -1)"; fi
export GPUPLAN="$gpuplan" CHROMIUM="$chromium"
if [ -n "${2:-}" ]; then mkdir -p "$2"; export SCREENSHOTS="$(cd "$2" && pwd)"; fi
cd "$root/web"
exec node --test --test-concurrency=1 tests/
