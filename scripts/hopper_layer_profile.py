#!/usr/bin/env python3
# What one dense transformer layer's training step costs on one Hopper GPU, term by term (issue 31,
# fourteenth session): the layers of the Megatron-Bridge H100 rows the model prices too slow
# (Llama 3 8B at TP1, Llama 3 70B sharded TP4) and, for contrast, the one it prices right
# (Llama 3.1 405B sharded TP8), at sequence 8,192 and one sequence per micro-batch.
# Run on a GPU machine with torch (nothing is fetched); writes --out (JSON) after every part:
#   gemm      each linear's forward, dgrad and wgrad GEMM (the per-rank shapes), bf16 through
#             torch.matmul (cuBLAS) and fp8 through torch._scaled_mm (cuBLASLt; e4m3 activations and
#             weights, e5m2 gradients as Transformer Engine's HYBRID format, one fp32 scale per
#             tensor as its current-scaling recipe), ms and TFLOP/s
#   fp8_cast  the per-tensor scaling kernels timed apart: amax (one reduction), the cast to e4m3
#             and the transposed cast, on the activation shapes, ms and GB/s
#   attention scaled_dot_product_attention, causal (is_causal), GQA, bf16, on the cuDNN backend
#             (Transformer Engine's FusedAttention runs cuDNN's kernels) and on FlashAttention-2;
#             forward and backward, ms and TFLOP/s (causal FLOPs: 2 x 2 x s^2 x d x heads / 2
#             forward, 2.5x that backward)
#   layer     the whole layer forward + backward in eager bf16 (F.rms_norm, rotary, SDPA cuDNN,
#             SwiGLU), wall time by CUDA events and kernel time by class under torch.profiler
#   copy      a plain bf16 copy and an add of 8,192 x hidden tensors (the HBM rate element-wise
#             kernels reach at these sizes)
# Times are medians over repeated calls, each timed call a loop of `inner` calls between CUDA
# events (kernels back to back, no host gaps at these sizes).
import argparse
import json
import os
import re
import subprocess
import sys
import time

# name: hidden, q heads, kv heads (per rank), head dim, ffn (per rank), tp
CONFIGS = {
    "llama3_8b_tp1": dict(hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, tp=1),
    "llama3_70b_tp4": dict(hidden=8192, heads=16, kv_heads=2, head_dim=128, ffn=7168, tp=4),
    "llama31_405b_tp8": dict(hidden=16384, heads=16, kv_heads=1, head_dim=128, ffn=6656, tp=8),
}
SEQ = 8192

CLASSES = [  # first match wins; kernel names as CUDA reports them
    ("attention", re.compile(r"flash|fmha|attention|sdpa|cudnn|_attn_|mha", re.I)),
    ("gemm", re.compile(r"gemm|cutlass|xmma|nvjet|sm90_|matmul|cublas", re.I)),
    ("elementwise", re.compile(r".", re.I)),
]


def classify(name):
    for cls, rx in CLASSES:
        if rx.search(name):
            return cls
    return "other"


def timed_ms(torch, fn, reps=9, inner=5):
    """Median over `reps` of (time of `inner` back-to-back calls) / inner, in ms."""
    fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        for _ in range(inner):
            fn()
        e1.record()
        e1.synchronize()
        ts.append(e0.elapsed_time(e1) / inner)
    return round(sorted(ts)[reps // 2], 5)


def linears(c):
    """(name, N, K) per rank: y[T, N] = x[T, K] @ w[N, K]^T."""
    h, d = c["hidden"], c["head_dim"]
    return [
        ("qkv", (c["heads"] + 2 * c["kv_heads"]) * d, h),
        ("proj", h, c["heads"] * d),
        ("fc1", 2 * c["ffn"], h),
        ("fc2", h, c["ffn"]),
    ]


def gemm_part(torch, cfg_name, c, out, save):
    T = SEQ
    f8, f8b = torch.float8_e4m3fn, torch.float8_e5m2
    one = torch.ones((), device="cuda", dtype=torch.float32)
    for name, N, K in linears(c):
        x = torch.randn(T, K, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(N, K, device="cuda", dtype=torch.bfloat16) * 0.02
        dy = torch.randn(T, N, device="cuda", dtype=torch.bfloat16)
        flops = 2.0 * T * N * K
        bf = {
            "fwd": lambda: torch.nn.functional.linear(x, w),
            "dgrad": lambda: torch.mm(dy, w),
            "wgrad": lambda: torch.mm(dy.t(), x),
        }
        # fp8 operands in the layouts cuBLASLt takes (A row-major, B column-major): what
        # Transformer Engine keeps as the cast and the transposed cast of each tensor.
        x8 = x.to(f8)                      # [T, K]
        xt8 = x.t().contiguous().to(f8)    # [K, T]
        w8 = w.to(f8)                      # [N, K]
        wt8 = w.t().contiguous().to(f8)    # [K, N]
        dy8 = dy.to(f8b)                   # [T, N]
        dyt8 = dy.t().contiguous().to(f8b)  # [N, T]
        f8fns = {
            "fwd": lambda: torch._scaled_mm(x8, w8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16),
            "dgrad": lambda: torch._scaled_mm(dy8, wt8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16),
            "wgrad": lambda: torch._scaled_mm(dyt8, xt8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16),
        }
        for dtype, fns in (("bf16", bf), ("fp8", f8fns)):
            for pas, fn in fns.items():
                row = {"config": cfg_name, "linear": name, "pass": pas, "dtype": dtype,
                       "M": T if pas != "wgrad" else N, "N": N if pas != "wgrad" else K,
                       "K": K if pas == "fwd" else (N if pas == "dgrad" else T)}
                try:
                    ms = timed_ms(torch, fn)
                    row.update(ms=ms, tflops=round(flops / ms / 1e9, 1))
                except Exception as e:  # noqa: BLE001
                    row["error"] = str(e)[:300]
                    if dtype == "fp8" and pas != "fwd":  # e5m2 x e4m3 refused: both e4m3
                        try:
                            dy8b = dy.to(f8)
                            dyt8b = dy.t().contiguous().to(f8)
                            fn2 = (lambda: torch._scaled_mm(dy8b, wt8.t(), scale_a=one, scale_b=one,
                                                            out_dtype=torch.bfloat16)) if pas == "dgrad" else \
                                  (lambda: torch._scaled_mm(dyt8b, xt8.t(), scale_a=one, scale_b=one,
                                                            out_dtype=torch.bfloat16))
                            ms = timed_ms(torch, fn2)
                            row.update(ms=ms, tflops=round(flops / ms / 1e9, 1), grad_format="e4m3")
                        except Exception as e2:  # noqa: BLE001
                            row["error2"] = str(e2)[:300]
                out["gemm"].append(row)
                print(cfg_name, name, pas, dtype, row.get("ms"), row.get("tflops"), row.get("error", ""), flush=True)
        del x, w, dy, x8, xt8, w8, wt8, dy8, dyt8
        save()


def cast_part(torch, cfg_name, c, out, save):
    f8 = torch.float8_e4m3fn
    for name, N, K in linears(c):
        x = torch.randn(SEQ, K, device="cuda", dtype=torch.bfloat16)
        n = x.numel()
        fns = {
            "amax": (lambda: torch.aminmax(x), 2 * n),
            "cast": (lambda: x.to(f8), 3 * n),
            "cast_transpose": (lambda: x.t().contiguous().to(f8), 2 * n + 2 * n + 2 * n + n),
            "scale_cast": (lambda: (x * 1.5).to(f8), 2 * n + 2 * n + 2 * n + n),
        }
        for kind, (fn, nbytes) in fns.items():
            row = {"config": cfg_name, "input_of": name, "kernel": kind, "rows": SEQ, "cols": K, "bytes": nbytes}
            try:
                ms = timed_ms(torch, fn)
                row.update(ms=ms, gbps=round(nbytes / ms / 1e6, 1))
            except Exception as e:  # noqa: BLE001
                row["error"] = str(e)[:300]
            out["fp8_cast"].append(row)
        del x
    save()


def attention_part(torch, cfg_name, c, out, save):
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    H, KV, D = c["heads"], c["kv_heads"], c["head_dim"]
    fwd_flops = 2.0 * 2.0 * SEQ * SEQ * D * H / 2.0
    for bname, be in (("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)):
        for gqa in ("native", "repeated"):
            row = {"config": cfg_name, "backend": bname, "gqa": gqa, "heads": H, "kv_heads": KV,
                   "head_dim": D, "seq": SEQ, "fwd_flops": fwd_flops}
            try:
                q = torch.randn(1, H, SEQ, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                if gqa == "native":
                    k = torch.randn(1, KV, SEQ, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                    v = torch.randn(1, KV, SEQ, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                    kw = {"enable_gqa": KV != H}
                else:
                    k = torch.randn(1, H, SEQ, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                    v = torch.randn(1, H, SEQ, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                    kw = {}
                g = torch.randn(1, H, SEQ, D, device="cuda", dtype=torch.bfloat16)
                with sdpa_kernel([be]):
                    def fwd():
                        with torch.no_grad():
                            return F.scaled_dot_product_attention(q, k, v, is_causal=True, **kw)

                    def fwdbwd():
                        o = F.scaled_dot_product_attention(q, k, v, is_causal=True, **kw)
                        torch.autograd.grad(o, (q, k, v), g)

                    f_ms = timed_ms(torch, fwd)
                    fb_ms = timed_ms(torch, fwdbwd, reps=7, inner=3)
                b_ms = fb_ms - f_ms
                row.update(fwd_ms=f_ms, bwd_ms=round(b_ms, 5), fwd_tflops=round(fwd_flops / f_ms / 1e9, 1),
                           bwd_tflops=round(2.5 * fwd_flops / b_ms / 1e9, 1))
            except Exception as e:  # noqa: BLE001
                row["error"] = str(e)[:300]
            out["attention"].append(row)
            print(cfg_name, bname, gqa, row.get("fwd_ms"), row.get("bwd_ms"), row.get("fwd_tflops"),
                  row.get("bwd_tflops"), row.get("error", ""), flush=True)
            q = k = v = g = None
    save()


def layer_part(torch, cfg_name, c, out, save):
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    h, H, KV, D, ffn = c["hidden"], c["heads"], c["kv_heads"], c["head_dim"], c["ffn"]
    T = SEQ
    dev = "cuda"
    bf = torch.bfloat16
    p = lambda *s: (torch.randn(*s, device=dev, dtype=bf) * 0.02).requires_grad_()  # noqa: E731
    w_qkv, w_o = p((H + 2 * KV) * D, h), p(h, H * D)
    w_fc1, w_fc2 = p(2 * ffn, h), p(h, ffn)
    n1 = torch.ones(h, device=dev, dtype=bf, requires_grad=True)
    n2 = torch.ones(h, device=dev, dtype=bf, requires_grad=True)
    pos = torch.arange(T, device=dev, dtype=torch.float32)
    inv = 1.0 / (500000.0 ** (torch.arange(0, D, 2, device=dev, dtype=torch.float32) / D))
    ang = torch.outer(pos, inv)
    cos = torch.cat([ang.cos(), ang.cos()], -1).to(bf)[None, None]
    sin = torch.cat([ang.sin(), ang.sin()], -1).to(bf)[None, None]

    def rot(x):
        x1, x2 = x[..., : D // 2], x[..., D // 2:]
        return torch.cat([-x2, x1], -1)

    def layer(x):
        a = F.rms_norm(x, (h,), n1, 1e-5)
        qkv = F.linear(a, w_qkv)
        q, k, v = qkv.split([H * D, KV * D, KV * D], -1)
        q = q.view(1, T, H, D).transpose(1, 2)
        k = k.view(1, T, KV, D).transpose(1, 2)
        v = v.view(1, T, KV, D).transpose(1, 2)
        q = q * cos + rot(q) * sin
        k = k * cos + rot(k) * sin
        if native_gqa:
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=KV != H)
        else:  # this cuDNN path refuses enable_gqa: keys and values repeated to the query heads
            o = F.scaled_dot_product_attention(q, k.repeat_interleave(H // KV, 1), v.repeat_interleave(H // KV, 1),
                                               is_causal=True)
        o = o.transpose(1, 2).reshape(T, H * D)
        x = x + F.linear(o, w_o)
        b = F.rms_norm(x, (h,), n2, 1e-5)
        gu = F.linear(b, w_fc1)
        gt, up = gu.chunk(2, -1)
        return x + F.linear(F.silu(gt) * up, w_fc2)

    x0 = torch.randn(T, h, device=dev, dtype=bf, requires_grad=True)
    gy = torch.randn(T, h, device=dev, dtype=bf)
    params = [x0, w_qkv, w_o, w_fc1, w_fc2, n1, n2]
    native_gqa = any(r["config"] == cfg_name and r["backend"] == "cudnn" and r["gqa"] == "native"
                     and "error" not in r for r in out["attention"])
    row = {"config": cfg_name, "native_gqa": native_gqa}
    try:
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
            def step():
                y = layer(x0)
                torch.autograd.grad(y, params, gy)

            def fwd():
                with torch.no_grad():
                    layer(x0)

            row["fwd_ms"] = timed_ms(torch, fwd, reps=7, inner=3)
            row["fwd_bwd_ms"] = timed_ms(torch, step, reps=7, inner=3)
            from torch.profiler import ProfilerActivity, profile
            step()
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(3):
                    step()
                torch.cuda.synchronize()
            by_class, by_kernel = {}, {}
            for ev in prof.key_averages():
                dt = getattr(ev, "device_type", None)
                if dt is not None and not str(dt).endswith("CUDA"):
                    continue
                us = getattr(ev, "device_time_total", None)
                if us is None:
                    us = getattr(ev, "cuda_time_total", 0)
                if not us or ev.key.startswith("aten::") or ev.key.startswith("cuda"):
                    continue
                cls = classify(ev.key)
                by_class[cls] = by_class.get(cls, 0.0) + us / 3e3
                by_kernel[ev.key[:120]] = [round(us / 3e3, 4), ev.count // 3, cls]
            row["kernel_ms_by_class"] = {k: round(v, 4) for k, v in by_class.items()}
            row["kernel_ms_sum"] = round(sum(by_class.values()), 4)
            row["kernels"] = dict(sorted(by_kernel.items(), key=lambda kv: -kv[1][0])[:40])
    except Exception as e:  # noqa: BLE001
        row["error"] = str(e)[:500]
    out["layer"].append(row)
    print(cfg_name, "layer", row.get("fwd_ms"), row.get("fwd_bwd_ms"), row.get("kernel_ms_by_class"),
          row.get("error", ""), flush=True)
    save()


def copy_part(torch, out, save):
    for h in (4096, 8192, 16384):
        x = torch.randn(SEQ, h, device="cuda", dtype=torch.bfloat16)
        y = torch.empty_like(x)
        z = torch.randn_like(x)
        n = x.numel() * 2
        for kind, fn, nbytes in (("copy", lambda: y.copy_(x), 2 * n), ("add", lambda: torch.add(x, z, out=y), 3 * n)):
            try:
                ms = timed_ms(torch, fn, reps=9, inner=10)
                out["copy"].append({"cols": h, "kernel": kind, "bytes": nbytes, "ms": ms,
                                    "gbps": round(nbytes / ms / 1e6, 1)})
            except Exception as e:  # noqa: BLE001
                out["copy"].append({"cols": h, "kernel": kind, "error": str(e)[:300]})
        del x, y, z
    save()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget-s", type=float, default=150.0, help="stop starting new parts after this many seconds")
    ap.add_argument("--configs", default=",".join(CONFIGS))
    args = ap.parse_args()
    import torch

    t0 = time.time()
    p = torch.cuda.get_device_properties(0)
    out = {"what": "one dense layer's training step on one Hopper GPU, term by term (issue 31)",
           "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
           "gpu": p.name, "sms": p.multi_processor_count, "torch": torch.__version__,
           "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(), "seq": SEQ,
           "micro_batch": 1, "configs": {k: CONFIGS[k] for k in args.configs.split(",")},
           "gemm": [], "fp8_cast": [], "attention": [], "layer": [], "copy": [], "errors": {}}
    try:
        out["nvidia_smi"] = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit",
             "--format=csv,noheader"], capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception as e:  # noqa: BLE001
        out["errors"]["nvidia_smi"] = str(e)[:200]
    try:
        import triton
        out["triton"] = triton.__version__
    except Exception:  # noqa: BLE001
        pass

    def save():
        out["seconds"] = round(time.time() - t0, 1)
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)

    save()
    parts = []
    for cfg in args.configs.split(","):
        c = CONFIGS[cfg]
        parts += [("attention", cfg, c), ("gemm", cfg, c), ("layer", cfg, c), ("cast", cfg, c)]
    parts.append(("copy", None, None))
    for kind, cfg, c in parts:
        if time.time() - t0 > args.budget_s:
            out["errors"]["budget"] = f"stopped before {kind} {cfg}"
            break
        try:
            if kind == "attention":
                attention_part(torch, cfg, c, out, save)
            elif kind == "gemm":
                gemm_part(torch, cfg, c, out, save)
            elif kind == "layer":
                layer_part(torch, cfg, c, out, save)
            elif kind == "cast":
                cast_part(torch, cfg, c, out, save)
            else:
                copy_part(torch, out, save)
        except Exception as e:  # noqa: BLE001
            out["errors"][f"{kind}:{cfg}"] = str(e)[:400]
            print("ERROR", kind, cfg, e, flush=True)
        torch.cuda.empty_cache()
        save()
    save()
    print("done in", out["seconds"], "s", flush=True)


if __name__ == "__main__":
    main()
