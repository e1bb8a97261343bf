#!/usr/bin/env bash
# Builds the collective validation files docs/validation.md ("## Collectives") scores, from the
# shared measurements and the published fixtures, into one folder:
#   scripts/collective-files.sh [OUTDIR]      (default /tmp/gpuplan-collectives)
# c6 (261 rows), c8 (281), c7 (285), c9 (305), c10 (361, issue 32's headline), c11 (341),
# c12 (385), c13 (401: c10 + the 10-node InfiniBand run), c14 (381: c10 + the same source's 8- and
# 4-rank SendRecv rings), c15 (421: c13 + them). Every row is the source's own line.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
S="${GPUPLAN_SHARED:-$here/../shared}/data/collectives.csv"
F="$here/tests/fixtures/collectives"
O="${1:-/tmp/gpuplan-collectives}"
mkdir -p "$O"
body() { tail -n +2 "$1"; }
{ head -1 "$S"; body "$S"; body "$F/published-candidates.csv"; body "$F/published-rccl.csv"
  body "$F/published-tcpxo.csv"; body "$F/published-tcpxo-allgather.csv"; } > "$O/c6.csv"
{ cat "$O/c6.csv"; body "$F/published-azure-gb200.csv"; } > "$O/c8.csv"
{ cat "$O/c6.csv"; body "$F/published-oci.csv"; } > "$O/c7.csv"
{ cat "$O/c7.csv"; body "$F/published-azure-gb200.csv"; } > "$O/c9.csv"
{ cat "$O/c8.csv"; body "$F/published-h100-cluster01.csv"; } > "$O/c10.csv"
{ cat "$O/c6.csv"; body "$F/published-h100-cluster01.csv"; } > "$O/c11.csv"
{ cat "$O/c9.csv"; body "$F/published-h100-cluster01.csv"; } > "$O/c12.csv"
{ cat "$O/c10.csv"; body "$F/published-h100-cluster01-ib.csv"; } > "$O/c13.csv"
{ cat "$O/c10.csv"; body "$F/published-h100-cluster01-sendrecv.csv"; } > "$O/c14.csv"
{ cat "$O/c13.csv"; body "$F/published-h100-cluster01-sendrecv.csv"; } > "$O/c15.csv"
wc -l "$O"/c*.csv
