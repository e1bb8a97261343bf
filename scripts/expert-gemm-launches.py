#!/usr/bin/env python3
"""How the model's GEMM shape term, with one launch over the experts or one GEMM per expert
(Transformer Engine's GroupedLinear: one cuBLAS GEMM per local expert over 4 streams), predicts
the per-expert loop measured by scripts/moe_gemm_profile.py (`loop_ms`: one torch.mm per expert,
bf16, H100/H200 SXM; data/calibration/moe/).

The shape term is cost/roofline.cpp's, restated here: wave quantisation of the output tiles
(the Hopper family's 128 x 256 tile, either orientation, split-K below one wave) times
K / (K + k_half), k_half = 128, at the best dense rate the file measured; the weights and
activations at the GPU's datasheet HBM bandwidth x 0.605 (data/fitted/efficiency/hopper.toml).
Prints the median |error| of each variant and the signed median at >= 1,024 rows per expert.

usage: scripts/expert-gemm-launches.py data/calibration/moe/moe-gemm-h100-sxm-2026-11-27.json:3.35 \
           data/calibration/moe/moe-gemm-h200-sxm-2026-11-27.json:4.8      # FILE:HBM_TB_PER_S
"""
import json
import math
import statistics
import sys

SMS, TILE_M, TILE_N, K_HALF, BW_FRACTION = 132, 128, 256, 128, 0.605


def waves(m, n, count, tm, tn):
    tiles = math.ceil(m / tm - 1e-9) * math.ceil(n / tn - 1e-9) * count
    split = math.floor(SMS / tiles) if tiles < SMS else 1
    return m * n * count * split / (math.ceil(tiles * split / SMS - 1e-9) * SMS * tm * tn)


def shape_efficiency(m, n, k, count):
    return max(waves(m, n, count, TILE_M, TILE_N), waves(m, n, count, TILE_N, TILE_M)) * k / (k + K_HALF)


def main(args):
    for arg in args:
        path, tb = arg.rsplit(":", 1)
        bw = float(tb) * 1e12 * BW_FRACTION
        rows = [r for r in json.load(open(path))["rows"] if r["precision"] == "bf16"]
        best = max(r["dense_tflops"] for r in rows) * 1e12
        variants = {"one launch over the experts": None, "one GEMM per expert": 1, "TE: 4 in flight": 4}
        errors = {v: [] for v in variants}
        large = {v: [] for v in variants}
        for r in rows:
            if not r.get("loop_ms"):
                continue
            m, n, k, e = r["rows_per_expert"], r["n"], r["k"], r["touched_experts"]
            memory_s = e * (n * k + m * (k + n)) * 2 / bw
            for name, cap in variants.items():
                in_flight = e if cap is None else min(e, cap)
                t = max(2 * m * n * k * e / (best * shape_efficiency(m, n, k, in_flight)), memory_s)
                err = t / (r["loop_ms"] * 1e-3) - 1
                errors[name].append(abs(err))
                if m >= 1024:
                    large[name].append(err)
        print(f"{path}: {len(errors['one GEMM per expert'])} shapes, best dense {best / 1e12:.0f} TFLOP/s")
        for name in variants:
            print(f"  {name:28s} median |error| {100 * statistics.median(errors[name]):5.1f}%   "
                  f">= 1,024 rows per expert: signed median {100 * statistics.median(large[name]):+5.1f}% "
                  f"({len(large[name])})")


if __name__ == "__main__":
    main(sys.argv[1:])
