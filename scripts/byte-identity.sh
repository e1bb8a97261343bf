#!/usr/bin/env bash
# Whether two gpuplan builds give byte-identical answers (docs/performance.md, issue 36: a
# speed change must not move an output byte). Runs the same commands with both binaries and
# compares stdout and the exit status with cmp; `elapsed_s` lines are dropped (wall time) and
# searches run on one thread (their counters depend on the thread count).
#
#   scripts/byte-identity.sh BASE_GPUPLAN NEW_GPUPLAN [SHARED_DATA_DIR]
#
# Prints one line per differing command and a summary; exits 1 when any differs.
set -u
base=$1
new=$2
data=${3:-/work/shared/data}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

cmds=()
add() { cmds+=("$*"); }

# Validation of every shared file, with and without the held-out refits.
add validate training "$data/training-runs.csv" --json
add validate training "$data/training-runs.csv" --fit --leave-one-source-out --time-split 2026-01-01 --json
add validate inference "$data/inference-runs.csv" --json
add validate inference "$data/inference-runs.csv" --leave-one-gpu-out --json
add validate collectives "$data/collectives.csv" --json
add validate collectives "$data/collectives.csv" --leave-one-source-out --json

# Training plans: the benchmark plans and a spread of models, schedules and options.
add train --model llama3-70b --gpu h100-sxm --gpus 64 --tp 4 --pp 4 --vp 5 --sp --zero 1 --seq-len 8192 --global-batch 128 --precision fp8 --json
add train --model llama3-70b --gpu h100-sxm --gpus 64 --tp 4 --pp 4 --vp 5 --sp --zero 1 --seq-len 8192 --global-batch 128 --precision fp8 --micro-batch 2 --recompute selective --json
add train --model deepseek-v3 --gpu h100-sxm --gpus 512 --pp 16 --ep 32 --zero 1 --seq-len 4096 --global-batch 4096 --precision fp8 --json
add train --model deepseek-v3 --gpu h100-sxm --gpus 512 --pp 16 --vp 2 --ep 32 --zero 1 --seq-len 4096 --global-batch 4096 --precision fp8 --recompute full --json
add train --model deepseek-v3 --gpu h800 --gpus 2048 --pp 16 --ep 64 --zero 1 --seq-len 4096 --global-batch 15360 --precision fp8 --moe-overlap dualpipe --fp8-activation-cache --pp-embedding-head-slots --json
add train --model llama3.1-405b --gpu h100-sxm --gpus 16384 --tp 8 --pp 16 --vp 2 --sp --zero 1 --recompute full --pp-embedding-head-slots --seq-len 8192 --global-batch 2048 --json
add train --model llama3.1-8b --gpu h100-sxm --gpus 8 --json
add train --model llama3.1-8b --gpu h100-sxm --gpus 8 --framework pytorch --pp 2 --json
add train --model llama3.1-8b --gpu a100-sxm-80gb --gpus 8 --json
add train --model llama3.1-8b --gpu h100-sxm --gpus 1 --json
add train --model llama3.1-8b --gpu rtx-4090 --gpus 8 --json
add train --model llama3-8b --gpu h100-sxm --gpus 64 --zero 3 --seq-len 8192 --global-batch 512 --micro-batch 4 --json
add train --model mixtral-8x7b --gpu h100-sxm --gpus 64 --tp 2 --pp 4 --ep 8 --sp --precision fp8 --fp8-params --zero 1 --json
add train --model nemotron-3-nano-30b-a3b --gpu h100-sxm --gpus 32 --pp 4 --ep 8 --seq-len 8192 --global-batch 256 --json
add train --model nemotron-3-nano-30b-a3b --gpu h100-sxm --gpus 32 --pp 4 --vp 2 --ep 8 --pp-embedding-head-slots --recompute selective --global-batch 256 --json
add train --model jamba-v0.1 --gpu h100-sxm --gpus 64 --pp 4 --ep 8 --json
add train --model jamba-v0.1 --gpu h100-sxm --gpus 64 --pp 8 --ep 8 --pp-embedding-head-slots --json
add train --model nemotron-h-8b --gpu h100-sxm --gpus 16 --pp 2 --json
add train --model llama3-70b --gpu b200 --gpus 64 --tp 4 --pp 2 --sp --precision fp8 --zero 1 --json
add train --model llama3-70b --gpu mi300x --gpus 64 --tp 8 --pp 2 --zero 1 --json
add train --model llama3-70b --gpu h100-sxm --gpus 64 --zero 3 --recompute full --json
add train --model llama3-70b --gpu h100-sxm --gpus 64 --tp 8 --zero 1 --offload-optimizer --json
add train --model llama3-70b --gpu h100-sxm --gpus 64 --tp 4 --pp 8 --sp --zero 1 --offload-activation-layers 2 --json
add train --model llama3.1-70b --gpu h100-sxm --gpus 64 --tp 8 --cp 2 --sp --seq-len 32768 --zero 1 --recompute selective --json
add train --model qwen3-30b-a3b --gpu h200-sxm --gpus 32 --ep 8 --pp 2 --zero 1 --precision fp8 --fp8-recipe blockwise --moe-dispatcher flex --json
add train --model gpt-oss-120b --gpu h100-sxm --gpus 64 --ep 8 --pp 4 --vp 3 --moe-overlap 1f1b --moe-imbalance 1.3 --global-batch 256 --json
add train --model llama3.1-8b --gpu h100-sxm --gpus 8 --elementwise eager --framework pytorch --json
add train --model qwen2.5-7b --gpu h100-sxm --gpus 8 --optimizer-state-bits 8 --memory-headroom-gib 4 --json
# Models with two or more kinds of layer sharing a mixer (the mixer sums a kind reuses), under
# every recompute setting, the activation cache, eager kernels and the early stop of recompute.
add train --model deepseek-v3 --gpu h100-sxm --gpus 512 --pp 16 --ep 32 --zero 1 --seq-len 4096 --global-batch 4096 --precision fp8 --recompute selective --json
add train --model deepseek-v3 --gpu h100-sxm --gpus 512 --pp 16 --ep 32 --zero 1 --seq-len 4096 --global-batch 4096 --precision fp8 --fp8-activation-cache --json
add train --model deepseek-v3 --gpu h100-sxm --gpus 256 --tp 2 --pp 8 --cp 2 --ep 16 --sp --zero 1 --seq-len 8192 --global-batch 1024 --vp 2 --recompute full --json
add train --model jamba-v0.1 --gpu h100-sxm --gpus 64 --pp 4 --ep 8 --recompute selective --json
add train --model jamba-v0.1 --gpu h100-sxm --gpus 64 --pp 4 --ep 8 --recompute full --framework pytorch --json
add train --model jamba-v0.1 --gpu h100-sxm --gpus 64 --pp 4 --ep 8 --framework pytorch --elementwise eager --recompute full --json
add train --model gpt-oss-20b --gpu h100-sxm --gpus 16 --ep 8 --pp 2 --framework pytorch --elementwise eager --recompute full --json
add train --model gpt-oss-20b --gpu h100-sxm --gpus 16 --ep 8 --pp 2 --recompute selective --json
add train --model qwen2-57b-a14b --gpu h100-sxm --gpus 32 --tp 2 --ep 8 --pp 2 --sp --recompute full --framework pytorch --json
add train --model nemotron-3-nano-30b-a3b --gpu h100-sxm --gpus 32 --pp 4 --ep 8 --recompute full --framework pytorch --elementwise eager --json
add train --model nemotron-h-8b --gpu h100-sxm --gpus 16 --pp 2 --recompute selective --json
add train --model mixtral-8x22b --gpu h100-sxm --gpus 64 --tp 4 --ep 8 --pp 2 --sp --recompute selective --json
# Errors (exit 2) compared too.
add train --model llama3-70b --gpu h100-sxm --gpus 64 --tp 3 --json
add train --model deepseek-v3 --gpu h100-sxm --gpus 64 --ep 7 --json

# Searches on one thread.
add search --model llama3-70b --gpu h100-sxm --gpus 512 --top 20 --threads 1 --json
add search --model deepseek-v3 --gpu h100-sxm --gpus 1024 --top 10 --threads 1 --json
add search --model mixtral-8x7b --gpu h100-sxm --gpus 16 --no-prune --threads 1 --json
add search --model nemotron-3-nano-30b-a3b --gpu h100-sxm --gpus 64 --no-prune --threads 1 --json
add search --model jamba-v0.1 --gpu h100-sxm --gpus 64 --threads 1 --json
add search --model llama3.1-8b --gpu a100-sxm-80gb --gpus 64 --threads 1 --json
add search --model gpt-oss-20b --gpu h100-sxm --gpus 32 --no-prune --threads 1 --json
add search --model qwen3-30b-a3b --gpu h200-sxm --gpus 64 --threads 1 --json
add search --model llama3.1-405b --gpu h100-sxm --gpus 16384 --global-batch 2048 --seq-len 8192 --no-prune --threads 1 --top 3 --json

# Serving.
add infer --model llama3.1-70b --gpu h100-sxm --tp 4 --json
add infer --model mixtral-8x7b --gpu h100-sxm --tp 2 --json
add infer-search --model llama3.1-70b --gpu h100-sxm --gpus 8 --rate 10 --json

differ=0
i=0
for c in "${cmds[@]}"; do
  i=$((i + 1))
  # shellcheck disable=SC2086
  "$base" $c 2>/dev/null | grep -v '"elapsed_s"\|elapsed_s' > "$out/base.$i"
  echo "exit ${PIPESTATUS[0]}" >> "$out/base.$i"
  # shellcheck disable=SC2086
  "$new" $c 2>/dev/null | grep -v '"elapsed_s"\|elapsed_s' > "$out/new.$i"
  echo "exit ${PIPESTATUS[0]}" >> "$out/new.$i"
  if ! cmp -s "$out/base.$i" "$out/new.$i"; then
    echo "DIFFERS: gpuplan $c"
    differ=$((differ + 1))
  fi
done
echo "$i commands, $differ differing"
[ "$differ" -eq 0 ]
