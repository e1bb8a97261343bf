#!/usr/bin/env python3
# The grouped expert GEMM's two measured constants (cost/grouped_gemm.h) from the timings of
# scripts/moe_gemm_profile.py, in the model's own form:
#   time = max(expert weights / stream, FLOPs / (rate x shape efficiency)) + waves x tile cost
#   stream = min(HBM, SMs x stream per SM); waves = ceil(experts x ceil(rows/128) x ceil(n/256) / SMs)
# rate: the file's best dense GEMM of the precision; shape efficiency: cost/roofline.cpp's
# (wave quantisation with split-K, K / (K + 128)); tiles 128 x 256 (data/fitted/efficiency/hopper.toml).
# Fits each file (median |error| over every bf16 up/down row, grid search), then scores each
# GPU with the other's constants (leave one GPU out) and with the means the data file ships.
# Usage: scripts/fit-grouped-gemm.py data/calibration/moe/moe-gemm-h100-sxm-2026-11-27.json \
#            data/calibration/moe/moe-gemm-h200-sxm-2026-11-27.json --read-tbs 3.09,4.43
import argparse
import json
import math
import statistics

SMS = 132  # H100 SXM and H200 SXM (data/hardware)
TILE_M, TILE_N, K_HALF = 128, 256, 128
BYTES = {"bf16": 2, "fp8": 1}


def wave_efficiency(m, n, count, tm, tn):
    tiles = math.ceil(m / tm) * math.ceil(n / tn) * count
    split = math.floor(SMS / tiles) if tiles < SMS else 1
    waves = math.ceil(tiles * split / SMS)
    return m * n * count * split / (waves * SMS * tm * tn)


def predict_ms(r, precision, rate, tile_us, stream_per_sm, hbm):
    experts = r["touched_experts"]
    rows = r["rows"] / experts
    n, k, b = r["n"], r["k"], BYTES[precision]
    weight_bytes = experts * n * k * b + r["rows"] * (k * b + n * 2)
    eff = max(wave_efficiency(rows, n, experts, TILE_M, TILE_N),
              wave_efficiency(rows, n, experts, TILE_N, TILE_M)) * k / (k + K_HALF)
    compute_s = r["flops"] / (rate * eff)
    stream = min(hbm, stream_per_sm * SMS)
    tiles = experts * math.ceil(rows / TILE_M) * math.ceil(n / TILE_N)
    return (max(weight_bytes / stream, compute_s) + math.ceil(tiles / SMS) * tile_us * 1e-6) * 1e3


def rows_of(path, precision):
    rows = json.load(open(path))["rows"]
    use = [r for r in rows if r["precision"] == precision and r["pass"] in ("up", "down") and "grouped_ms" in r]
    rate = max(r["dense_tflops"] for r in rows if r["precision"] == precision and "dense_tflops" in r) * 1e12
    return use, rate


def errors(rows, precision, rate, tile_us, stream_per_sm, hbm=1e15):
    return [predict_ms(r, precision, rate, tile_us, stream_per_sm, hbm) / r["grouped_ms"] - 1 for r in rows]


def median_abs(e):
    return statistics.median(abs(x) for x in e)


def fit(rows, precision, rate):
    best = None
    for t in range(0, 41):
        tile_us = t * 0.25
        for s in range(100, 400):
            per_sm = s * 0.1e9
            m = median_abs(errors(rows, precision, rate, tile_us, per_sm))
            if best is None or m < best[0]:
                best = (m, tile_us, per_sm)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--precision", default="bf16")
    ap.add_argument("--tile-us", type=float, default=5.75, help="the shipped tile cost (data/fitted/efficiency/hopper.toml)")
    ap.add_argument("--gbs-per-sm", type=float, default=22.6, help="the shipped stream per SM, GB/s")
    ap.add_argument("--read-tbs", default="", help="comma list, one per file: the GPU's plain-read HBM bandwidth "
                    "(../shared/calibration/*.json memory_bandwidth), for the baseline without the grouped terms")
    a = ap.parse_args()
    data = {f: rows_of(f, a.precision) for f in a.files}
    reads = dict(zip(a.files, [float(x) * 1e12 for x in a.read_tbs.split(",")])) if a.read_tbs else {}
    fits = {}
    for f, (rows, rate) in data.items():
        m, tile_us, per_sm = fit(rows, a.precision, rate)
        fits[f] = (tile_us, per_sm)
        print(f"{f}: {len(rows)} rows, best dense {rate / 1e12:.0f} TFLOP/s; fitted tile {tile_us:.2f} us, "
              f"stream {per_sm / 1e9:.1f} GB/s per SM ({per_sm * SMS / 1e12:.2f} TB/s); median |err| {100 * m:.1f}%")
    for f, (rows, rate) in data.items():
        for g, (tile_us, per_sm) in fits.items():
            if g != f:
                print(f"  {f} with {g}'s constants: median |err| {100 * median_abs(errors(rows, a.precision, rate, tile_us, per_sm)):.1f}%")
        e = errors(rows, a.precision, rate, a.tile_us, a.gbs_per_sm * 1e9)
        print(f"  {f} with the shipped constants ({a.tile_us} us, {a.gbs_per_sm} GB/s per SM): median |err| "
              f"{100 * median_abs(e):.1f}%, bias {100 * statistics.median(e):+.1f}%")
        hbm = reads.get(f, 1e15)
        e0 = errors(rows, a.precision, rate, 0, 1e15 / SMS, hbm)
        print(f"  {f} without either term (a dense GEMM's shape model, weights at {hbm / 1e12:.2f} TB/s): median |err| "
              f"{100 * median_abs(e0):.1f}%, bias {100 * statistics.median(e0):+.1f}%")


if __name__ == "__main__":
    main()
