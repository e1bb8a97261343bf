#!/usr/bin/env bash
# `gpuplan serve` over real HTTP on loopback (ctest serve.http): /api/train answers the same
# bytes as `gpuplan train --json`; a bad config.json is HTTP 400 with the CLI's message; a body
# over 1 MiB is 413; the page and its script are served. Exits 77 (ctest: skipped) when the
# binary has no web assets or no server (built without Node or cpp-httplib), saying so.
set -euo pipefail
gpuplan="${1:?usage: serve_http.sh GPUPLAN}"
work="$(mktemp -d)"
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

"$gpuplan" serve --port 0 >"$work/log" 2>&1 &
pid=$!
port=""
for _ in $(seq 1 100); do
  port="$(sed -nE 's#^gpuplan serve: http://127\.0\.0\.1:([0-9]+)/.*#\1#p' "$work/log")"
  [ -n "$port" ] && break
  if ! kill -0 "$pid" 2>/dev/null; then
    if grep -q "built without" "$work/log"; then echo "SKIP: $(cat "$work/log")"; exit 77; fi
    echo "serve exited early:"; cat "$work/log"; exit 1
  fi
  sleep 0.1
done
[ -n "$port" ] || { echo "serve did not start:"; cat "$work/log"; exit 1; }
base="http://127.0.0.1:$port"
fail() { echo "FAIL: $*"; exit 1; }
post() { curl -sS -o "$work/body" -w '%{http_code}' -X POST -H 'Content-Type: application/json' --data-binary "$2" "$base$1"; }

# 1. /api/train is `gpuplan train --json`, byte for byte.
code="$(post /api/train '{"model": "llama3.1-70b", "gpu": "h100-sxm", "gpus": 64, "tp": 8, "pp": 2, "sp": true, "zero": 1, "global_batch": 256, "seq_len": 8192, "recompute": "selective"}')"
[ "$code" = 200 ] || fail "/api/train: HTTP $code: $(cat "$work/body")"
"$gpuplan" train --model llama3.1-70b --gpu h100-sxm --gpus 64 --tp 8 --pp 2 --sp --zero 1 --global-batch 256 \
  --seq-len 8192 --recompute selective --json >"$work/cli.json"
cmp "$work/body" "$work/cli.json" || fail "/api/train differs from gpuplan train --json"
echo "ok: /api/train = gpuplan train --json ($(wc -c <"$work/cli.json") bytes)"

# 2. A bad uploaded config: 400 with the config reader's message.
code="$(post /api/train '{"gpus": 8, "model_config": {"model_type": "llama", "num_hidden_layers": 2}}')"
[ "$code" = 400 ] || fail "bad config: HTTP $code"
grep -q "hidden_size" "$work/body" || fail "bad config: message does not name the field: $(cat "$work/body")"
echo "ok: bad config.json → 400: $(tr -d '\n' <"$work/body" | head -c 200)"

# 3. A bad plan: 400 with the CLI's own error object, each flag said as the body's key
# (--gpus → gpus; serve/api.h api_error_in_keys).
code="$(post /api/train '{"model": "llama3.1-8b", "gpus": 8, "tp": 3}')"
[ "$code" = 400 ] || fail "bad plan: HTTP $code"
"$gpuplan" train --model llama3.1-8b --gpus 8 --tp 3 --json | sed 's/"--gpus 8/"gpus 8/' >"$work/cli-bad.json" || true
cmp "$work/body" "$work/cli-bad.json" || fail "bad plan: message differs from the CLI's (flags as keys)"
echo "ok: bad plan → 400 with the CLI's message, fields named as keys"

# 4. A body over the 1 MiB limit: 413, and the server goes on answering.
head -c 1100000 /dev/zero | tr '\0' ' ' >"$work/big"
code="$(curl -sS -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' --data-binary @"$work/big" "$base/api/train")"
[ "$code" = 413 ] || fail "big body: HTTP $code"
echo "ok: 1.1 MB body → 413"

# 5. A path as the model is refused; GET on a POST endpoint is 405; unknown endpoints 404.
code="$(post /api/train '{"model": "/etc/passwd"}')"
[ "$code" = 400 ] || fail "path model: HTTP $code"
code="$(curl -sS -o /dev/null -w '%{http_code}' "$base/api/train")"
[ "$code" = 405 ] || fail "GET /api/train: HTTP $code"
code="$(curl -sS -o /dev/null -w '%{http_code}' "$base/api/nothing")"
[ "$code" = 404 ] || fail "/api/nothing: HTTP $code"
echo "ok: path model → 400, GET → 405, unknown → 404"

# 6. The page, its script, the lists.
for path in / /app.js /style.css /api/gpus /api/models; do
  code="$(curl -sS -o /dev/null -w '%{http_code}' "$base$path")"
  [ "$code" = 200 ] || fail "GET $path: HTTP $code"
done
echo "ok: page, script, style, /api/gpus, /api/models"
echo "serve.http: 6 passed, 0 failed"
