#!/usr/bin/env python3
# Where one-GPU PyTorch training time goes, kernel by kernel (issue 28): the attention kernels
# SDPA picks, eager and under torch.compile, and their rates by sequence length and head width.
# Run on a GPU machine with torch and transformers (nothing is fetched); writes into --out:
#   sdpa.json      scaled_dot_product_attention alone: each backend (cuDNN, FlashAttention-2,
#                  memory-efficient) x head width (64, 128) x sequence (1k..16k) at 16k tokens per
#                  call, causal, GQA 4:1, bf16; forward and forward+backward, ms and TFLOP/s
#                  (causal FLOPs = 2 * 2 * b * h * s^2 * d / 2 forward, 2.5x that backward).
#   steps.json     one profiled training step of real models (the harness's set-up: fp32 master
#                  weights, bf16 autocast, fused AdamW, SDPA), eager and compiled: kernel time by
#                  kernel name and by class (attention, GEMM, element-wise/Triton, optimizer, other).
# Used by docs/validation.md, "Held-out one-GPU runs", to tell which attention kernel runs.
import argparse
import json
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = os.path.join(HERE, "..", "data", "calibration", "pytorch", "configs")

CLASSES = [  # first match wins; names as CUDA reports them
    ("attention", re.compile(r"flash|fmha|attention|sdpa|cudnn.*(fprop|bprop)|_attn_|mha", re.I)),
    ("optimizer", re.compile(r"multi_tensor|adam", re.I)),
    ("gemm", re.compile(r"gemm|cutlass|xmma|nvjet|sm90_|sm100_|matmul|cublas", re.I)),
    ("elementwise", re.compile(r"elementwise|vectorized|reduce|triton|softmax|norm|copy|fill|cat|index|"
                               r"nll|log_softmax|cross|mul|add|silu|embedding", re.I)),
]


def classify(name):
    for cls, rx in CLASSES:
        if rx.search(name):
            return cls
    return "other"


def median_ms(torch, fn, reps):
    """One warm-up call, then the median of `reps` calls timed by CUDA events, in ms."""
    fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        fn()
        e1.record()
        e1.synchronize()
        ts.append(e0.elapsed_time(e1))
    return round(sorted(ts)[reps // 2], 4)


def sdpa_bench(torch, out, budget_s):
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backends = [("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION),
                ("efficient", SDPBackend.EFFICIENT_ATTENTION)]
    t0 = time.time()
    rows = []
    tokens = 16384
    for d in (128, 64):
        heads = 2048 // d  # hidden 2048, as the 1-2B models measured
        kv = heads // 4
        for s in (1024, 2048, 4096, 8192, 16384):
            b = max(1, tokens // s)
            for name, be in backends:
                if time.time() - t0 > budget_s:
                    break
                row = {"backend": name, "head_dim": d, "heads": heads, "kv_heads": kv, "seq": s, "batch": b}
                q = k = v = kr = vr = g = None
                try:
                    q = torch.randn(b, heads, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                    k = torch.randn(b, kv, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                    v = torch.randn(b, kv, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                    # Keys/values repeated to the query heads, as transformers' SDPA path does when it
                    # does not pass enable_gqa (the step profiles below show what it runs).
                    kr = k.repeat_interleave(heads // kv, dim=1).detach().requires_grad_()
                    vr = v.repeat_interleave(heads // kv, dim=1).detach().requires_grad_()
                    g = torch.randn(b, heads, s, d, device="cuda", dtype=torch.bfloat16)

                    def fwd():
                        with sdpa_kernel(be):
                            return F.scaled_dot_product_attention(q, kr, vr, is_causal=True)

                    def fwdbwd():
                        o = fwd()
                        o.backward(g)

                    for fn, key in ((fwd, "fwd_ms"), (fwdbwd, "fwdbwd_ms")):
                        row[key] = median_ms(torch, fn, 7)
                    f_fwd = 2 * 2 * b * heads * s * s * d / 2
                    row["fwd_tflops"] = round(f_fwd / (row["fwd_ms"] * 1e-3) / 1e12, 1)
                    row["fwdbwd_tflops"] = round(3.5 * f_fwd / (row["fwdbwd_ms"] * 1e-3) / 1e12, 1)
                except Exception as e:  # noqa: BLE001 — a backend that refuses a shape is recorded
                    row["error"] = f"{type(e).__name__}: {str(e)[:160]}"
                rows.append(row)
                print("SDPA", json.dumps(row), flush=True)
                del q, k, v, kr, vr, g
                torch.cuda.empty_cache()
    # Which backend the default dispatch picks (no sdpa_kernel context), from the profiler.
    s, d, heads = 4096, 128, 16
    q = torch.randn(4, heads, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    kk = torch.randn(4, heads, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        o = F.scaled_dot_product_attention(q, kk, kk, is_causal=True)
        o.sum().backward()
        torch.cuda.synchronize()
    default = sorted({e.key for e in prof.key_averages() if classify(e.key) == "attention"})
    with open(os.path.join(out, "sdpa.json"), "w") as f:
        json.dump({"rows": rows, "default_dispatch_kernels": default}, f, indent=1)


def mask_bench(torch, out):
    """The attention transformers runs under torch.compile: with the causal mask materialized (the
    step profiles show the same cuDNN kernels as eager, 3.3x slower). Default dispatch, cuDNN-sized
    shapes, four ways: is_causal (the kernel skips the masked half), no mask and not causal (all of
    s^2), a boolean (b, 1, s, s) mask and an additive bf16 one. Same timing and FLOP convention as
    sdpa.json (causal FLOPs, so a non-causal call shows half its real rate)."""
    import torch.nn.functional as F
    from torch.profiler import ProfilerActivity, profile
    rows = []
    tokens = 16384
    for d in (128, 64):
        heads = 2048 // d
        for s in (2048, 4096, 8192, 16384):
            b = max(1, tokens // s)
            q = torch.randn(b, heads, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
            k = torch.randn(b, heads, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
            v = torch.randn(b, heads, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
            g = torch.randn(b, heads, s, d, device="cuda", dtype=torch.bfloat16)
            tri = torch.ones(s, s, device="cuda", dtype=torch.bool).tril()
            bool_mask = tri.expand(b, 1, s, s)
            add_mask = torch.zeros(s, s, device="cuda", dtype=torch.bfloat16).masked_fill(~tri, float("-inf")).expand(b, 1, s, s)
            for variant, kw in (("causal", {"is_causal": True}), ("full", {}), ("bool_mask", {"attn_mask": bool_mask}),
                                ("additive_mask", {"attn_mask": add_mask})):
                row = {"variant": variant, "head_dim": d, "heads": heads, "seq": s, "batch": b}
                try:
                    def fwd():
                        return F.scaled_dot_product_attention(q, k, v, **kw)

                    def fwdbwd():
                        fwd().backward(g)

                    for fn, key in ((fwd, "fwd_ms"), (fwdbwd, "fwdbwd_ms")):
                        row[key] = median_ms(torch, fn, 5)
                    with profile(activities=[ProfilerActivity.CUDA]) as prof:
                        fwdbwd()
                        torch.cuda.synchronize()
                    row["kernels"] = sorted({e.key[:90] for e in prof.key_averages() if classify(e.key) == "attention"})
                except Exception as e:  # noqa: BLE001
                    row["error"] = f"{type(e).__name__}: {str(e)[:160]}"
                rows.append(row)
                print("MASK", json.dumps({k: v for k, v in row.items() if k != "kernels"}), flush=True)
            del q, k, v, g, tri, bool_mask, add_mask
            torch.cuda.empty_cache()
    with open(os.path.join(out, "sdpa-mask.json"), "w") as f:
        json.dump(rows, f, indent=1)


def step_profile(torch, model_name, seq, batch, compiled):
    import gc
    import tempfile
    from transformers import AutoConfig, AutoModelForCausalLM
    from torch.profiler import ProfilerActivity, profile
    with open(os.path.join(CONFIGS, model_name + ".json")) as f:
        raw = json.load(f)
    raw.pop("torch_dtype", None)
    tmp = tempfile.mkdtemp()
    with open(os.path.join(tmp, "config.json"), "w") as f:
        json.dump(raw, f)
    cfg = AutoConfig.from_pretrained(tmp)
    cfg.use_cache = False
    torch.manual_seed(0)
    with torch.device("cuda"):
        model = AutoModelForCausalLM.from_config(cfg, dtype=torch.float32, attn_implementation="sdpa")
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=True)
    fn = torch.compile(model) if compiled else model
    ids = torch.randint(0, cfg.vocab_size, (batch, seq), device="cuda")

    def one():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            out = fn(input_ids=ids, labels=ids)
        out.loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    for _ in range(3 if compiled else 2):
        one()
    torch.cuda.synchronize()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    one()
    e1.record()
    e1.synchronize()
    step_ms = e0.elapsed_time(e1)
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        one()
        torch.cuda.synchronize()
    kernels = {}
    for e in prof.key_averages():
        t = getattr(e, "self_device_time_total", None)
        if t is None:
            t = e.self_cuda_time_total
        if t <= 0:
            continue
        kernels[e.key] = kernels.get(e.key, (0.0, 0))
        kernels[e.key] = (kernels[e.key][0] + t / 1e3, kernels[e.key][1] + e.count)
    by_class = {}
    for k, (ms, _) in kernels.items():
        c = classify(k)
        by_class[c] = round(by_class.get(c, 0.0) + ms, 3)
    top = sorted(kernels.items(), key=lambda kv: -kv[1][0])[:40]
    res = {"model": model_name, "seq": seq, "batch": batch, "compiled": compiled, "step_ms_unprofiled": round(step_ms, 3),
           "kernel_ms_total": round(sum(v[0] for v in kernels.values()), 3), "by_class_ms": by_class,
           "top_kernels": [{"name": k[:160], "ms": round(v[0], 3), "calls": v[1], "class": classify(k)} for k, v in top]}
    del model, opt, fn, ids
    gc.collect()
    torch.cuda.empty_cache()
    if compiled:
        torch._dynamo.reset()
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--sdpa-budget-s", type=float, default=60.0)
    ap.add_argument("--steps", default="llama3.2-1b:8192:1:0,llama3.2-1b:8192:1:1,qwen3-1.7b:8192:1:0,qwen3-1.7b:8192:1:1",
                    help="model:seq:batch:compiled,...")
    ap.add_argument("--mask-bench", action="store_true", help="also time SDPA with materialized masks (sdpa-mask.json)")
    ap.add_argument("--budget-s", type=float, default=200.0, help="start no step profile after this many seconds")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    import torch
    t0 = time.time()
    if args.mask_bench:
        mask_bench(torch, args.out)
        print(f"mask bench done at {time.time() - t0:.0f} s", flush=True)
    if args.sdpa_budget_s > 0:
        sdpa_bench(torch, args.out, args.sdpa_budget_s)
    print(f"sdpa done at {time.time() - t0:.0f} s", flush=True)
    steps = []
    for spec in filter(None, args.steps.split(",")):
        if time.time() - t0 > args.budget_s:
            print("budget spent: skipped", spec, flush=True)
            continue
        m, s, b, c = spec.split(":")
        try:
            r = step_profile(torch, m, int(s), int(b), c == "1")
        except Exception as e:  # noqa: BLE001
            r = {"spec": spec, "error": f"{type(e).__name__}: {str(e)[:300]}"}
        steps.append(r)
        print("STEP", json.dumps({k: v for k, v in r.items() if k != "top_kernels"}), flush=True)
        with open(os.path.join(args.out, "steps.json"), "w") as f:
            json.dump(steps, f, indent=1)
    print(f"done in {time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    sys.exit(main())
