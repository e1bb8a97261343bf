#!/usr/bin/env bash
# Folders depend downward only. The order below is the one docs/architecture.md describes,
# lowest first: a file in folder N may include from folders 0..N (and system headers), never
# from a folder above it. Prints every upward include and exits 1 if there is one; a folder
# under src/ that is not in the list is an error too, so a new folder must be given its place.
#
# Usage: scripts/check-layers.sh [ROOT]   (ROOT defaults to the repository)
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"

layers=(core workload catalog cost calibration plan infer search econ sweep validate report emit monitor serve cli bench_support)

# Each folder's rank, looked up in the shell itself: no process per include line (the check
# runs in every `make test`; forking sed and a subshell per line took a minute on a busy
# machine).
declare -A rank_of=()
for i in "${!layers[@]}"; do rank_of["${layers[$i]}"]="$i"; done

bad=0
dirs=()
for d in "$root"/src/*/; do [ -d "$d" ] && dirs+=("$d"); done
[ -d "$root/cuda/bench_support" ] && dirs+=("$root/cuda/bench_support/")
for d in "${dirs[@]}"; do
  folder="$(basename "$d")"
  own="${rank_of[$folder]:--1}"
  if [ "$own" -lt 0 ]; then
    echo "check-layers: folder '$folder' has no place in the layer order (scripts/check-layers.sh, docs/architecture.md)"
    bad=1
    continue
  fi
  while IFS= read -r hit; do
    file="${hit%%:*}"
    rest="${hit#*:}"
    line="${rest%%:*}"
    [[ "${rest#*:}" =~ ^[^\"]*\"([^\"]+)\" ]] || continue
    inc="${BASH_REMATCH[1]}"
    [[ "$inc" == */* ]] || continue
    target="${inc%%/*}"
    trank="${rank_of[$target]:--1}"
    [ "$trank" -lt 0 ] && continue  # not a project folder (e.g. a third-party path)
    if [ "$trank" -gt "$own" ]; then
      echo "${file#"$root"/}:$line: '$folder' includes \"$inc\" from '$target', a folder above it"
      bad=1
    fi
  done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"' "$d" --include='*.h' --include='*.cpp' --include='*.cu' || true)
done

if [ "$bad" -ne 0 ]; then
  echo "check-layers: order (lowest first): ${layers[*]}"
  exit 1
fi
echo "check-layers: ${#dirs[@]} folders, every include points downward"
