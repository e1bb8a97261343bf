#!/usr/bin/env bash
# Load test of `gpuplan serve`'s /api/train on loopback (docs/performance.md): wrk (Debian) from a
# second process, REQUESTS POSTs in all over CONNECTIONS keep-alive connections, each the default
# question of `make run` (Llama 3.1 70B on 64 H100s). Prints wrk's latency distribution and the
# count of non-2xx answers and socket errors (both must be 0).
# Usage: scripts/load-test.sh [GPUPLAN] [REQUESTS] [CONNECTIONS] [SERVER_THREADS]
# wrk runs for its whole -d however soon the requests are done, so its "Requests/sec" is only
# the rate with REQUESTS=0, which runs for DURATION (default 30s) without a count.
set -euo pipefail
gpuplan="${1:-build/gpuplan}"
requests="${2:-10000}"
connections="${3:-8}"
server_threads="${4:-8}"
wrk_threads=2
command -v wrk >/dev/null || { echo "load-test: wrk is not installed (apt-get install wrk)"; exit 2; }
work="$(mktemp -d)"
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
"$gpuplan" serve --port 0 --threads "$server_threads" >"$work/log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  port="$(sed -nE 's#^gpuplan serve: http://127\.0\.0\.1:([0-9]+)/.*#\1#p' "$work/log")"
  [ -n "${port:-}" ] && break
  sleep 0.1
done
[ -n "${port:-}" ] || { cat "$work/log"; exit 1; }
# Each wrk thread stops after its share of the requests.
cat >"$work/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"model": "llama3.1-70b", "gpu": "h100-sxm", "gpus": 64, "tp": 8, "pp": 2, "sp": true, "zero": 1, "global_batch": 256, "seq_len": 8192, "recompute": "selective"}'
local done_count = 0
local share = $((requests / wrk_threads))
function response(status, headers, body)
  done_count = done_count + 1
  if share > 0 and done_count >= share then wrk.thread:stop() end
end
LUA
echo "load-test: $requests POST /api/train, $connections connections, $wrk_threads wrk threads, $server_threads server threads, $(nproc) cores"
duration="${DURATION:-30s}"
# A count: as long as ~100 requests/s needs, plus 15 s (wrk prints the count it reached).
[ "$requests" -gt 0 ] && duration="$((requests / 100 + 15))s"
wrk -t"$wrk_threads" -c"$connections" -d"$duration" --latency -s "$work/post.lua" "http://127.0.0.1:$port/api/train"
