#!/usr/bin/env bash
# Everything a session with a GPU lent should run for calibration (issue 7), in stages that
# each fit in one 10-minute device call. Run from the repository root on the GPU machine:
#
#   scripts/gpu-session.sh build            # configure + build with CUDA (Release, -Werror)
#   scripts/gpu-session.sh quick            # ctest's cuda.bench_quick: the first run of every kernel
#   scripts/gpu-session.sh measure [--quick] # gpuplan-bench: the full profile (a few minutes)
#   scripts/gpu-session.sh compare PROFILE  # measured vs predicted, before and after calibration
#   scripts/gpu-session.sh torch [ARGS]     # PyTorch + transformers training steps on one GPU (issue 28):
#                                           # rows in the training-runs schema with peak memory, into $OUT
#                                           # (needs only python3 with torch and transformers; no build)
#
# The device image has nvcc, CMake and ninja but not necessarily the Debian -dev packages, and it
# cannot fetch any. So the benchmark can instead be built HERE and carried:
#   scripts/gpu-session.sh bundle           # (here) build-gpu-bundle/bundle: gpuplan-bench and its
#                                           # non-CUDA libraries, libstdc++ linked in, no NCCL/MPI
#   scripts/gpu-session.sh run-bundle [ARGS] # (there, carry build-gpu-bundle/bundle) --quick, then
#                                           # the full profile into $OUT; ARGS go to the full run
# and `compare` runs here on the profile that comes back.
#
# GPU=h100-sxm (the catalog id) is taken from nvidia-smi's name when not set. Results go to
# $OUT (the device tool's output folder) when set, else to build/gpu-session/; the profile is
# also written to data/calibration/GPU-DATE.json, where measured profiles are kept.
set -euo pipefail

stage=${1:-}
shift || true
out=${OUT:-build/gpu-session}
mkdir -p "$out"
build=build

gpu_id() {
  if [[ -n ${GPU:-} ]]; then echo "$GPU"; return; fi
  local name
  name=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 2>/dev/null || true)
  case "$name" in
    *H100*HBM3*|*H100*SXM*) echo h100-sxm ;;
    *H100*PCIe*) echo h100-pcie ;;
    *H100*NVL*) echo h100-nvl ;;
    *H200*NVL*) echo h200-nvl ;;
    *H200*) echo h200-sxm ;;
    *A100-SXM4-80GB*) echo a100-sxm-80gb ;;
    *B200*) echo b200 ;;
    *) echo "gpu-session: cannot tell the catalog id of '$name'; set GPU=<id> (see 'gpuplan gpus')" >&2; exit 2 ;;
  esac
}

# Machine facts every measurement is filed with.
facts() {
  {
    date -u +%FT%TZ
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,power.limit --format=csv 2>&1 || true
    nvcc --version 2>&1 | tail -1 || true
    git rev-parse HEAD 2>/dev/null || true
  } >"$out/facts.txt"
}

case "$stage" in
  build)
    facts
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUPLAN_CUDA=ON -DGPUPLAN_WERROR=ON 2>&1 | tee "$out/configure.log"
    cmake --build "$build" -j "$(nproc)" 2>&1 | tail -20 | tee "$out/build.log"
    ;;
  quick)
    ctest --test-dir "$build" -R '^cuda\.' --output-on-failure 2>&1 | tee "$out/ctest-cuda.log"
    cp "$build/bench_quick.json" "$out/" 2>/dev/null || true
    ;;
  measure)
    id=$(gpu_id)
    profile="data/calibration/$id-$(date -u +%F).json"
    "$build/gpuplan-bench" --gpu "$id" --out "$profile" "$@" 2>&1 | tee "$out/bench.log"
    cp "$profile" "$out/"
    ;;
  compare)
    profile=${1:?usage: gpu-session.sh compare PROFILE.json}
    "$build/gpuplan" validate calibration "$profile" | tee "$out/validate-calibration.txt"
    "$build/gpuplan" validate calibration "$profile" --json >"$out/validate-calibration.json"
    ;;
  bundle)
    dir=build-gpu-bundle
    # One GPU on the lent machines: no collectives, so no NCCL or MPI to find there.
    cmake -S . -B "$dir/cmake" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUPLAN_CUDA=ON -DGPUPLAN_WERROR=ON \
      -DGPUPLAN_TESTS=OFF -DGPUPLAN_BENCH=OFF -DGPUPLAN_NCCL=OFF \
      -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc" >/dev/null
    cmake --build "$dir/cmake" --target gpuplan-bench
    rm -rf "$dir/bundle" && mkdir -p "$dir/bundle/lib"
    cp "$dir/cmake/gpuplan-bench" "$dir/bundle/"
    # Every shared library but glibc's own and the CUDA driver; cuBLASLt (hundreds of MB) is
    # left to the device's CUDA toolkit.
    ldd "$dir/cmake/gpuplan-bench" | awk '/=> \//{print $1, $3}' | while read -r name path; do
      case "$name" in
        libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*|libcuda.so*|libcublas*) ;;
        *) cp -L "$path" "$dir/bundle/lib/" ;;
      esac
    done
    du -sh "$dir/bundle"; ls "$dir/bundle/lib"
    ;;
  run-bundle)
    dir=build-gpu-bundle/bundle
    facts
    cuda_lib=$(dirname "$(ldconfig -p | awk '/libcublasLt.so/{print $NF; exit}')" 2>/dev/null || true)
    export LD_LIBRARY_PATH="$dir/lib:${cuda_lib:-/usr/local/cuda/lib64}:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
    ldd "$dir/gpuplan-bench" >"$out/ldd.txt" 2>&1 || true
    id=$(gpu_id)
    "$dir/gpuplan-bench" --gpu "$id" --quick --out "$out/$id-quick.json" 2>&1 | tee "$out/bench-quick.log"
    "$dir/gpuplan-bench" --gpu "$id" --out "$out/$id-$(date -u +%F).json" "$@" 2>&1 | tee "$out/bench.log"
    ;;
  torch)
    facts
    python3 -c 'import torch, transformers; print("torch", torch.__version__, "cuda", torch.version.cuda, "transformers", transformers.__version__)' 2>&1 | tee -a "$out/facts.txt"
    python3 scripts/torch_train_steps.py --out "$out" --gpu "$(gpu_id)" "$@" 2>&1 | tee "$out/torch.log"
    ;;
  *)
    sed -n '2,23p' "$0" >&2
    exit 2
    ;;
esac
