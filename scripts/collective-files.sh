#!/usr/bin/env bash
# Builds the collective validation files docs/validation.md ("## Collectives") scores, from the
# shared measurements and the published fixtures, into one folder:
#   scripts/collective-files.sh [OUTDIR]      (default /tmp/gpuplan-collectives)
# c6 (261 rows), c8 (281), c7 (285), c9 (305), c10 (361, issue 32's headline), c11 (341),
# c12 (385), c13 (401: c10 + the 10-node InfiniBand run), c14 (560: c10 + the fifteenth session's
# sources, none of which any constant was fitted on: published-aws-efa.csv, 61 rows of AWS EFA;
# published-hisohara-rccl.csv, 106 rows of RCCL on MI300X / MI325X / MI355X over xGMI and RoCE;
# published-oci-multinode.csv, 32 rows of OCI's multi-rack GB200 / GB300, B300, MI355X and H100
# over RoCE or InfiniBand); c15 (c10 + the cluster01 source's 8- and 4-rank SendRecv rings),
# c16 (c13 + them), c17 (every row: c13 + the rings + the three unseen sources), c20 (c14 + the
# sixteenth session's NVIDIA sources over other fabrics, none fitted on: published-nccltests309-h100-ib.csv,
# 106 rows of 2-8 x 8 H100 over InfiniBand from two posters; published-gke-a4-gib.csv, 24 rows of
# 2 x 8 B200 AllGather over GCP A4's RoCE through the gIB plugin; published-gke-a3ultra-gib.csv, 48 rows
# of 2 x 8 H200 AllGather over GCP A3 Ultra's RoCE, two runs), c18 (652: c14 +
# the sixteenth session's second AWS EFA source, published-aws-efa-2.csv, 92 rows: p5 2-32 nodes
# AllReduce / AllToAll 32 MiB - 8 GiB from crazyguitar/aws-gpu-communication-benchmark, and the
# 2 x p4d / 2 x p6-b200 small-message lines of dstack PRs #3865 / #3961), c19 (c14 + the
# sixteenth session's RCCL multi-node source, published-rccl-multinode.csv: 58 rows of 2 x 8 MI355X
# over AMD Pollara 400 RoCE, AllReduce and AllToAll 16 B - 16 GiB, RCCL 2.27.7), c21 (c14 + every
# sixteenth-session source: c18's, c19's and c20's new rows together, the unseen headline of the
# sixteenth session). Every row is the source's own line.
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
{ cat "$O/c10.csv"; body "$F/published-aws-efa.csv"; body "$F/published-hisohara-rccl.csv"
  body "$F/published-oci-multinode.csv"; } > "$O/c14.csv"
{ cat "$O/c10.csv"; body "$F/published-h100-cluster01-sendrecv.csv"; } > "$O/c15.csv"
{ cat "$O/c13.csv"; body "$F/published-h100-cluster01-sendrecv.csv"; } > "$O/c16.csv"
{ cat "$O/c16.csv"; body "$F/published-aws-efa.csv"; body "$F/published-hisohara-rccl.csv"
  body "$F/published-oci-multinode.csv"; } > "$O/c17.csv"
{ cat "$O/c14.csv"; body "$F/published-nccltests309-h100-ib.csv"; body "$F/published-gke-a4-gib.csv"
  body "$F/published-gke-a3ultra-gib.csv"; } > "$O/c20.csv"
{ cat "$O/c14.csv"; body "$F/published-aws-efa-2.csv"; } > "$O/c18.csv"
{ cat "$O/c14.csv"; body "$F/published-rccl-multinode.csv"; } > "$O/c19.csv"
{ cat "$O/c14.csv"; body "$F/published-aws-efa-2.csv"; body "$F/published-rccl-multinode.csv"
  body "$F/published-nccltests309-h100-ib.csv"; body "$F/published-gke-a4-gib.csv"
  body "$F/published-gke-a3ultra-gib.csv"; } > "$O/c21.csv"
wc -l "$O"/c*.csv
