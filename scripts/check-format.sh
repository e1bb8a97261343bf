#!/usr/bin/env bash
# clang-format (the repository's .clang-format) over the files listed in
# scripts/clang-format-files.txt: each must be formatted already. The tree as a whole is not
# (formatting it would rewrite most files at once); a file joins the list when it is written or
# reformatted, so the formatted part only grows. Prints clang-format's complaints and exits 1
# if a listed file is not formatted; exits 77 (ctest: skipped) where clang-format is missing.
#
# Usage: scripts/check-format.sh [ROOT]   (ROOT defaults to the repository)
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
if ! command -v clang-format >/dev/null 2>&1; then
  echo "check-format: clang-format not installed; skipped"
  exit 77
fi
files=()
while IFS= read -r line; do
  line="${line%%#*}"
  line="${line//[[:space:]]/}"
  [ -n "$line" ] && files+=("$root/$line")
done < "$root/scripts/clang-format-files.txt"
for f in "${files[@]}"; do
  [ -f "$f" ] || { echo "check-format: listed file ${f#"$root"/} does not exist"; exit 1; }
done
if ! clang-format --dry-run --Werror --style=file "${files[@]}"; then
  echo "check-format: run clang-format -i on the files above (scripts/clang-format-files.txt lists them)"
  exit 1
fi
echo "check-format: ${#files[@]} listed files formatted ($(clang-format --version | head -1))"
