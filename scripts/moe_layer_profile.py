#!/usr/bin/env python3
# A whole routed-MoE layer on one GPU, stage by stage (issue 29): how much of a large-batch MoE
# step is NOT the expert GEMMs. Run on a GPU machine with torch (nothing is fetched); writes
# --out (JSON), one row per (model shape, tokens) with the median time of each stage and of the
# whole layer, from CUDA-graph replays (kernels back to back, no host gaps, as engines replay
# their decode steps):
#   router_ms   logits = x W_r (T x h x E, bf16) and the top-k softmax (torch.topk + softmax)
#   permute_ms  the token->expert sort (argsort of the T*k expert ids), the per-expert counts and
#               offsets, and the gather of x into T*k rows grouped by expert
#   up_ms       grouped gate+up GEMM (torch._grouped_mm: CUTLASS, one launch for all experts)
#   act_ms      SiLU(gate) * up over the T*k rows
#   down_ms     grouped down GEMM
#   combine_ms  the scatter of the T*k outputs back to their tokens, weighted by the routing
#               probabilities, summed over k
#   layer_ms    all of the above in one graph
# The router is a random bf16 matrix: routing is data-dependent but close to balanced, as the
# engines' benchmark presets run it. These are PyTorch's kernels, not an engine's fused ones
# (vLLM fuses the gather into its Triton GEMM, TensorRT-LLM fuses permute/finalize into CUTLASS
# epilogues): the stage times bound an engine's non-GEMM work from above, and the GEMM stages
# are the same CUTLASS grouped kernels as scripts/moe_gemm_profile.py.
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from moe_gemm_profile import GRAPH_FAILURES, median_ms  # noqa: E402

# (name, hidden, expert ffn per GPU, experts, top-k): the zoo's shapes (data/models/*.toml,
# from each config.json), all experts on the one GPU (TP-sliced ffn where the name says tp).
SHAPES = [
    ("qwen3-30b-a3b tp1", 2048, 768, 128, 8),
    ("qwen3-235b-a22b tp8", 4096, 192, 128, 8),
    ("gpt-oss-20b tp1", 2880, 2880, 32, 4),
    ("gpt-oss-120b tp1", 2880, 2880, 128, 4),
    ("gpt-oss-120b tp4", 2880, 720, 128, 4),
    ("mixtral-8x7b tp8", 4096, 1792, 8, 2),
]
TOKENS = [64, 256, 1024, 4096, 16384]


def layer_stages(torch, hidden, ffn, experts, top_k, tokens):
    """Builds the layer's tensors and returns {stage: fn} over preallocated buffers."""
    bf16 = torch.bfloat16
    x = torch.randn(tokens, hidden, device="cuda", dtype=bf16)
    w_router = torch.randn(hidden, experts, device="cuda", dtype=bf16) * hidden ** -0.5
    w_up = (torch.randn(experts, 2 * ffn, hidden, device="cuda", dtype=bf16) * 0.02).transpose(-2, -1)
    w_down = (torch.randn(experts, hidden, ffn, device="cuda", dtype=bf16) * 0.02).transpose(-2, -1)
    rows = tokens * top_k
    st = {}

    def router():
        logits = x @ w_router
        probs, ids = torch.topk(torch.softmax(logits.float(), dim=-1), top_k, dim=-1)
        st["probs"], st["ids"] = probs.to(bf16), ids
    router()

    def permute():
        flat = st["ids"].reshape(-1)
        order = torch.argsort(flat, stable=True)
        counts = torch.zeros(experts, device="cuda", dtype=torch.int32)
        counts.scatter_add_(0, flat.to(torch.int64), torch.ones_like(flat, dtype=torch.int32))
        st["offs"] = torch.cumsum(counts, 0, dtype=torch.int32)
        st["order"] = order
        st["xp"] = x.index_select(0, order // top_k)
    permute()

    def up():
        st["h"] = torch._grouped_mm(st["xp"], w_up, offs=st["offs"])
    up()

    def act():
        gate, upv = st["h"].chunk(2, dim=-1)
        st["a"] = torch.nn.functional.silu(gate) * upv
    act()

    def down():
        st["y"] = torch._grouped_mm(st["a"], w_down, offs=st["offs"])
    down()

    def combine():
        out = torch.zeros(rows, hidden, device="cuda", dtype=bf16)
        out.index_copy_(0, st["order"], st["y"])
        st["out"] = (out.view(tokens, top_k, hidden) * st["probs"].unsqueeze(-1)).sum(dim=1)
    combine()

    def layer():
        router(); permute(); up(); act(); down(); combine()
    return {"router": router, "permute": permute, "up": up, "act": act, "down": down,
            "combine": combine, "layer": layer}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--budget-s", type=float, default=150.0, help="start no shape after this many seconds")
    args = ap.parse_args()
    import torch
    t0 = time.time()
    rows, errors = [], []
    for name, hidden, ffn, experts, top_k in SHAPES:
        if time.time() - t0 > args.budget_s:
            errors.append(f"budget reached before {name}")
            break
        for tokens in TOKENS:
            try:
                fns = layer_stages(torch, hidden, ffn, experts, top_k, tokens)
                row = {"shape": name, "hidden": hidden, "ffn": ffn, "experts": experts,
                       "top_k": top_k, "tokens": tokens,
                       "gemm_flops": 2.0 * tokens * top_k * 3 * ffn * hidden,
                       "permute_model_bytes": tokens * (2 + 2 * top_k) * hidden * 2}
                for stage, fn in fns.items():
                    row[stage + "_ms"] = median_ms(torch, fn, args.reps)
                gemm = row["up_ms"] + row["down_ms"]
                row["non_gemm_share"] = round(1 - gemm / row["layer_ms"], 4)
                row["gemm_tflops"] = round(row["gemm_flops"] / (gemm * 1e-3) / 1e12, 1)
                rows.append(row)
            except Exception as e:  # noqa: BLE001 - recorded, the run goes on
                errors.append(f"{name} {tokens}: {e}"[:300])
            torch.cuda.empty_cache()
        print(f"{name}: done at {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
    meta = {"torch": torch.__version__, "device": torch.cuda.get_device_name(0),
            "cuda": torch.version.cuda, "reps": args.reps, "seconds": round(time.time() - t0, 1)}
    with open(args.out, "w") as f:
        json.dump({"meta": meta, "rows": rows, "errors": errors, "graph_failures": GRAPH_FAILURES}, f, indent=1)
    print(json.dumps(meta), f"{len(rows)} rows, {len(errors)} errors, {len(GRAPH_FAILURES)} eager", file=sys.stderr)
    for r in rows:
        print(f"{r['shape']:22s} T={r['tokens']:6d} layer {r['layer_ms']:.4f} ms  router {r['router_ms']:.4f} "
              f"permute {r['permute_ms']:.4f} up {r['up_ms']:.4f} act {r['act_ms']:.4f} down {r['down_ms']:.4f} "
              f"combine {r['combine_ms']:.4f}  non-GEMM {100 * r['non_gemm_share']:.0f}%  GEMM {r['gemm_tflops']} TF/s",
              file=sys.stderr)
    for e in errors[:20]:
        print("error:", e, file=sys.stderr)


if __name__ == "__main__":
    main()
