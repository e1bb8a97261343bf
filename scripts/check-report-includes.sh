#!/usr/bin/env bash
# report/ only formats (docs/architecture.md, "report/ only formats"): a file under src/report/
# may include core/ and report/ headers, the headers that declare a question's request and
# answer (`<folder>/*_request.h` and the few answer headers named below), the catalog's data
# structs and the Plan value with its JSON. Every other project header declares a model (cost
# functions, evaluators, derivations); a figure the report needs from one belongs in the answer,
# computed by the answer_* call. Prints each include outside that list and exits 1 if there is one.
#
# Usage: scripts/check-report-includes.sh [ROOT]   (ROOT defaults to the repository)
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"

# Answer headers not named *_request.h, catalog data structs, and the Plan value type.
allowed=(
  calibration/collective_question.h  # answer_collective, CollectiveAnswer
  catalog/topology_import.h          # import_topology, ImportedSystem
  infer/infer_features.h             # InferFeaturesAnswer, part of InferAnswer
  infer/sim_answer.h                 # SimAnswer, part of InferAnswer
  infer/infer_curve.h                # InferCurvePoint, the curve `infer --html` carries
  econ/cost_ownership.h              # answer_cost_ownership, CostOwnershipAnswer (the cost page)
  search/compare_training.h          # answer_compare_training, CompareTrainingAnswer (the compare page)
  catalog/catalog.h                  # the catalog's data structs
  catalog/gpu.h
  catalog/topology.h
  plan/plan.h                        # the Plan value
  plan/plan_json.h                   # its JSON, written and read back in one place
)
declare -A is_allowed=()
for a in "${allowed[@]}"; do is_allowed["$a"]=1; done

bad=0
count=0
while IFS= read -r hit; do
  file="${hit%%:*}"
  rest="${hit#*:}"
  line="${rest%%:*}"
  [[ "${rest#*:}" =~ ^[^\"]*\"([^\"]+)\" ]] || continue
  inc="${BASH_REMATCH[1]}"
  [[ "$inc" == */* ]] || continue
  count=$((count + 1))
  case "$inc" in
    core/* | report/* | */*_request.h) continue ;;
  esac
  [ -n "${is_allowed[$inc]:-}" ] && continue
  echo "${file#"$root"/}:$line: report/ includes \"$inc\", a model header; put the figure in the answer (docs/architecture.md)"
  bad=1
done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"' "$root/src/report" --include='*.h' --include='*.cpp' || true)

if [ "$bad" -ne 0 ]; then
  echo "check-report-includes: report/ may include core/, report/, */*_request.h and: ${allowed[*]}"
  exit 1
fi
echo "check-report-includes: $count project includes in src/report, none of a model header"
