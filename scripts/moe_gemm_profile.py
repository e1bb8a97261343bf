#!/usr/bin/env python3
# How fast the routed-expert GEMMs of MoE models run on one GPU (issue 29): grouped GEMMs over
# the experts one rank holds, at the per-expert row counts serving and training steps give them,
# against one dense GEMM of the same FLOPs. Run on a GPU machine with torch (nothing is fetched);
# writes --out (JSON) with one row per (model shape, tokens, precision, pass):
#   grouped_ms   torch._grouped_mm (bf16) / torch._scaled_grouped_mm (fp8 e4m3, row-wise scales):
#                CUTLASS grouped GEMMs, one launch for all local experts, as Transformer Engine's
#                GroupedLinear and the engines' MoE GEMM kernels run them
#   dense_ms     one GEMM of the same total rows (torch.mm / torch._scaled_mm): what a dense layer
#                of the same FLOPs would take; grouped/dense is the model's grouped_gemm_efficiency
#   loop_ms      one GEMM per touched expert (bf16 only; frameworks without a grouped kernel)
# Times are per call from CUDA-graph replays of ten calls (kernels back to back, no host gaps).
# Routing is balanced (the benchmark presets' forced balance): the step's tokens x top-k rows
# spread over all experts of the model, this rank holding `local` of them; a row count below one
# per expert leaves experts untouched (no tiles). Passes: up (gate+up, N = 2 ffn, K = hidden),
# down (N = hidden, K = ffn) and, for training, the weight gradient of up (reduction over rows).
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# One warm-up call, then the median of CUDA-event timings: the fallback where a call cannot be
# captured in a CUDA graph.
from torch_kernel_profile import median_ms as eager_median_ms  # noqa: E402

# (name, hidden, expert ffn per rank, experts in the model, top-k, local experts): the zoo's
# shapes (data/models/*.toml, from each model's config.json) at the splits engines run them.
SHAPES = [
    ("qwen3-30b-a3b tp1", 2048, 768, 128, 8, 128),
    ("qwen3-30b-a3b tp4", 2048, 192, 128, 8, 128),
    ("qwen3-235b-a22b tp8", 4096, 192, 128, 8, 128),
    ("qwen3-235b-a22b ep8", 4096, 1536, 128, 8, 16),
    ("gpt-oss-120b tp1", 2880, 2880, 128, 4, 128),
    ("gpt-oss-120b tp4", 2880, 720, 128, 4, 128),
    ("gpt-oss-20b tp1", 2880, 2880, 32, 4, 32),
    ("deepseek-v3 ep8", 7168, 2048, 256, 8, 32),
    ("deepseek-v3 ep32", 7168, 2048, 256, 8, 8),
    ("mixtral-8x7b tp1", 4096, 14336, 8, 2, 8),
    ("mixtral-8x7b tp8", 4096, 1792, 8, 2, 8),
]
TOKENS = [8, 32, 128, 512, 2048, 8192, 32768]


GRAPH_FAILURES = []


def median_ms(torch, fn, reps, inner=10):
    """Median over `reps` replays of a CUDA graph holding `inner` calls of fn, per call, in ms.
    A graph replays the kernels back to back without the host in between, as engines run their
    decode steps; plain event timing of one call measures torch's launch path (tens of µs)."""
    fn()
    torch.cuda.synchronize()
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        fn()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(graph):
            for _ in range(inner):
                fn()
    except Exception as e:  # noqa: BLE001 - not capturable: time it eagerly, and say so
        torch.cuda.synchronize()
        GRAPH_FAILURES.append(str(e)[:200])
        return eager_median_ms(torch, fn, reps)
    graph.replay()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        graph.replay()
        e1.record()
        e1.synchronize()
        ts.append(e0.elapsed_time(e1) / inner)
    del graph
    return round(sorted(ts)[reps // 2], 5)


def rows_per_expert(tokens, top_k, experts, local):
    """Balanced routing: tokens*top_k rows over `experts`; the first `local` experts' counts."""
    total = tokens * top_k
    base, extra = divmod(total, experts)
    return [base + (1 if i < extra else 0) for i in range(local)]


def offsets(torch, counts):
    import itertools
    return torch.tensor(list(itertools.accumulate(counts)), device="cuda", dtype=torch.int32)


def bench_shape(torch, name, hidden, ffn, experts, top_k, local, tokens, reps, errors):
    counts = rows_per_expert(tokens, top_k, experts, local)
    m_total = sum(counts)
    out = []
    if m_total == 0:
        return out
    touched = sum(1 for c in counts if c > 0)
    offs = offsets(torch, counts)
    bf16, fp8 = torch.bfloat16, torch.float8_e4m3fn
    for pass_name, k, n in (("up", hidden, 2 * ffn), ("down", ffn, hidden)):
        flops = 2.0 * m_total * n * k
        row = {"shape": name, "hidden": hidden, "ffn": ffn, "experts": experts, "top_k": top_k,
               "local_experts": local, "touched_experts": touched, "tokens": tokens,
               "rows": m_total, "rows_per_expert": m_total / touched, "pass": pass_name,
               "m": m_total, "n": n, "k": k, "flops": flops}
        a = torch.randn(m_total, k, device="cuda", dtype=bf16)
        w = torch.randn(local, n, k, device="cuda", dtype=bf16)  # stored (N, K) per expert
        wt = w.transpose(-2, -1)  # (G, K, N), column-major: the kernels' expected layout
        dense_w = torch.randn(n, k, device="cuda", dtype=bf16).t()
        r = dict(row, precision="bf16")
        try:
            r["grouped_ms"] = median_ms(torch, lambda: torch._grouped_mm(a, wt, offs=offs), reps)
        except Exception as e:  # noqa: BLE001 - recorded, the run goes on
            errors.append(f"{name} {tokens} {pass_name} bf16 grouped: {e}"[:300])
        r["dense_ms"] = median_ms(torch, lambda: torch.mm(a, dense_w), reps)
        if touched <= 32:
            views = []
            start = 0
            for g, c in enumerate(counts):
                if c:
                    views.append((a[start:start + c], wt[g]))
                start += c
            r["loop_ms"] = median_ms(torch, lambda: [torch.mm(x, y) for x, y in views], reps)
        out.append(r)
        # FP8 e4m3 with row-wise scales (per row of A, per output column of each expert's B).
        r8 = dict(row, precision="fp8")
        try:
            a8 = a.to(fp8)
            w8t = w.to(fp8).transpose(-2, -1)
            sa = torch.ones(m_total, device="cuda", dtype=torch.float32)
            sb = torch.ones(local, n, device="cuda", dtype=torch.float32)
            r8["grouped_ms"] = median_ms(torch, lambda: torch._scaled_grouped_mm(
                a8, w8t, sa, sb, offs=offs, out_dtype=bf16, use_fast_accum=True), reps)
        except Exception as e:  # noqa: BLE001
            errors.append(f"{name} {tokens} {pass_name} fp8 grouped: {e}"[:300])
        try:
            a8 = a.to(fp8)
            d8 = dense_w.to(fp8)  # (K, N) column-major view of an (N, K) tensor
            if not d8.t().is_contiguous():
                d8 = dense_w.t().contiguous().to(fp8).t()
            sa1 = torch.ones(m_total, 1, device="cuda", dtype=torch.float32)
            sb1 = torch.ones(1, n, device="cuda", dtype=torch.float32)
            r8["dense_ms"] = median_ms(torch, lambda: torch._scaled_mm(
                a8, d8, scale_a=sa1, scale_b=sb1, out_dtype=bf16, use_fast_accum=True), reps)
        except Exception as e:  # noqa: BLE001
            errors.append(f"{name} {tokens} {pass_name} fp8 dense: {e}"[:300])
        if "grouped_ms" in r8 or "dense_ms" in r8:
            out.append(r8)
        del a, w, wt, dense_w
    # Training's weight gradient of the up projection: per expert X_g^T (hidden x rows) times
    # dY_g (rows x 2 ffn), the reduction over each expert's rows (2-D x 2-D grouped, offsets on K).
    if tokens >= 512:
        k, n = hidden, 2 * ffn
        row = {"shape": name, "hidden": hidden, "ffn": ffn, "experts": experts, "top_k": top_k,
               "local_experts": local, "touched_experts": touched, "tokens": tokens, "rows": m_total,
               "rows_per_expert": m_total / touched, "pass": "up_wgrad", "m": k, "n": n, "k": m_total,
               "flops": 2.0 * m_total * n * k, "precision": "bf16"}
        xt = torch.randn(k, m_total, device="cuda", dtype=bf16)
        dy = torch.randn(n, m_total, device="cuda", dtype=bf16).t()
        try:
            row["grouped_ms"] = median_ms(torch, lambda: torch._grouped_mm(xt, dy, offs=offs), reps)
        except Exception as e:  # noqa: BLE001
            errors.append(f"{name} {tokens} up_wgrad bf16 grouped: {e}"[:300])
        row["dense_ms"] = median_ms(torch, lambda: torch.mm(xt, dy), reps)
        out.append(row)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--budget-s", type=float, default=240.0, help="start no shape after this many seconds")
    args = ap.parse_args()
    import torch
    t0 = time.time()
    rows, errors = [], []
    for shape in SHAPES:
        if time.time() - t0 > args.budget_s:
            errors.append(f"budget reached before {shape[0]}")
            break
        for tokens in TOKENS:
            try:
                rows += bench_shape(torch, *shape, tokens, args.reps, errors)
            except torch.cuda.OutOfMemoryError as e:
                errors.append(f"{shape[0]} {tokens}: OOM {e}"[:300])
            torch.cuda.empty_cache()
        print(f"{shape[0]}: done at {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
    for r in rows:
        for key in ("grouped_ms", "dense_ms", "loop_ms"):
            if key in r and r[key] > 0:
                r[key.replace("_ms", "_tflops")] = round(r["flops"] / (r[key] * 1e-3) / 1e12, 2)
    meta = {"torch": torch.__version__, "device": torch.cuda.get_device_name(0),
            "cuda": torch.version.cuda, "reps": args.reps, "seconds": round(time.time() - t0, 1)}
    with open(args.out, "w") as f:
        json.dump({"meta": meta, "rows": rows, "errors": errors, "graph_failures": GRAPH_FAILURES}, f, indent=1)
    print(json.dumps(meta), f"{len(rows)} rows, {len(errors)} errors, {len(GRAPH_FAILURES)} eager", file=sys.stderr)
    for e in errors[:20]:
        print("error:", e, file=sys.stderr)


if __name__ == "__main__":
    main()
