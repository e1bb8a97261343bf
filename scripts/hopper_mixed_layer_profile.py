#!/usr/bin/env python3
# The attention kernels' time inside a training layer held at the board's power limit (issue 31,
# fourteenth session). hopper_sustained_profile.py looped each kernel class alone: the fp8 GEMMs
# hold 1,320 MHz at 700 W on an H100 SXM, cuDNN's attention 1,755 MHz. In a training step they
# alternate within milliseconds, so the attention may run at the clock the GEMMs leave. Here the
# Llama 3 8B layer's kernels run in a training step's order, for --seconds: forward (QKV GEMM,
# attention, output GEMM, fc1, SwiGLU, fc2, residual adds) and backward (fc2 dgrad/wgrad, SwiGLU
# backward, fc1, output GEMM, attention backward, QKV), the GEMMs in fp8 (torch._scaled_mm, per-
# tensor scales) or bf16, attention on cuDNN (causal, GQA 32 / 8 heads, d 128, seq 8,192), each
# class bracketed by CUDA events, while nvidia-smi samples the SM clock and board power every 50 ms.
# Writes --out (JSON): per class the median ms per layer over the second half of the run.
import argparse
import json
import subprocess
import sys
import time

# --shape: per-rank dimensions (q heads, kv heads, hidden, ffn); 70b-tp4 is Llama 3 70B's layer at
# TP 4 (64 / 8 heads and 28,672 FFN over 4 ranks; the TP collectives are not run)
SHAPES = {"8b": (32, 8, 4096, 14336), "70b-tp4": (16, 2, 8192, 7168)}
T, D = 8192, 128
H, KV, HID, FFN = SHAPES["8b"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--shape", default="8b", choices=sorted(SHAPES))
    ap.add_argument("--gemms", default="fp8,bf16", help="comma-separated: fp8, bf16")
    args = ap.parse_args()
    global H, KV, HID, FFN
    H, KV, HID, FFN = SHAPES[args.shape]
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    p = torch.cuda.get_device_properties(0)
    out = {"what": "Llama 3 8B layer kernels in step order at the power limit (issue 31)",
           "command": " ".join(["python3"] + sys.argv), "gpu": p.name, "torch": torch.__version__,
           "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(), "shape": args.shape, "runs": []}
    f8, f8b = torch.float8_e4m3fn, torch.float8_e5m2
    one = torch.ones((), device="cuda", dtype=torch.float32)
    lin = {"qkv": ((H + 2 * KV) * D, HID), "proj": (HID, H * D), "fc1": (2 * FFN, HID), "fc2": (HID, FFN)}
    ten = {}
    for name, (N, K) in lin.items():
        x = torch.randn(T, K, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(N, K, device="cuda", dtype=torch.bfloat16) * 0.02
        dy = torch.randn(T, N, device="cuda", dtype=torch.bfloat16)
        ten[name] = dict(x=x, w=w, dy=dy, x8=x.to(f8), xt8=x.t().contiguous().to(f8), w8=w.to(f8),
                         wt8=w.t().contiguous().to(f8), dy8=dy.to(f8b), dyt8=dy.t().contiguous().to(f8b))

    def gemm(name, pas, fp8):
        t = ten[name]
        if fp8:
            a, b = {"fwd": (t["x8"], t["w8"]), "dgrad": (t["dy8"], t["wt8"]), "wgrad": (t["dyt8"], t["xt8"])}[pas]
            return torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        if pas == "fwd":
            return F.linear(t["x"], t["w"])
        if pas == "dgrad":
            return torch.mm(t["dy"], t["w"])
        return torch.mm(t["dy"].t(), t["x"])

    q = torch.randn(1, T, H, D, device="cuda", dtype=torch.bfloat16).transpose(1, 2).requires_grad_()
    k = torch.randn(1, T, KV, D, device="cuda", dtype=torch.bfloat16).transpose(1, 2).requires_grad_()
    v = torch.randn(1, T, KV, D, device="cuda", dtype=torch.bfloat16).transpose(1, 2).requires_grad_()
    g = torch.randn(1, T, H, D, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
    resid = torch.randn(T, HID, device="cuda", dtype=torch.bfloat16)
    gu = torch.randn(T, 2 * FFN, device="cuda", dtype=torch.bfloat16)

    def layer(fp8, evs):
        # forward
        evs[0].record()
        gemm("qkv", "fwd", fp8)
        evs[1].record()
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        evs[2].record()
        y = gemm("proj", "fwd", fp8)
        r = resid + y
        gemm("fc1", "fwd", fp8)
        gt, up = gu.chunk(2, -1)
        act = F.silu(gt) * up
        gemm("fc2", "fwd", fp8)
        r = r + y
        evs[3].record()
        # backward
        gemm("fc2", "dgrad", fp8)
        gemm("fc2", "wgrad", fp8)
        _ = act * up  # stands in for SwiGLU's backward element-wise pass
        gemm("fc1", "dgrad", fp8)
        gemm("fc1", "wgrad", fp8)
        gemm("proj", "dgrad", fp8)
        gemm("proj", "wgrad", fp8)
        evs[4].record()
        torch.autograd.grad(o, (q, k, v), g)
        evs[5].record()
        gemm("qkv", "dgrad", fp8)
        gemm("qkv", "wgrad", fp8)
        evs[6].record()

    for fp8 in [g == "fp8" for g in args.gemms.split(",")]:
        layer(fp8, [torch.cuda.Event(enable_timing=True) for _ in range(7)])
        torch.cuda.synchronize()
        smi = subprocess.Popen(["nvidia-smi", "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader,nounits",
                                "-lms", "50"], stdout=subprocess.PIPE, text=True)
        t0 = time.time()
        recs = []
        while time.time() - t0 < args.seconds:
            evs = [torch.cuda.Event(enable_timing=True) for _ in range(7)]
            layer(fp8, evs)
            evs[6].synchronize()
            recs.append((time.time() - t0, [evs[i].elapsed_time(evs[i + 1]) for i in range(6)],
                         evs[0].elapsed_time(evs[6])))
        smi.terminate()
        lines = smi.communicate(timeout=5)[0].strip().splitlines()
        samples = []
        for ln in lines:
            try:
                c, pw = ln.split(",")
                samples.append((float(c), float(pw)))
            except ValueError:
                pass
        late = [r for r in recs if r[0] > args.seconds / 2]
        med = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731
        names = ["qkv_fwd", "attention_fwd", "proj_fc1_fc2_fwd_and_elementwise", "fc2_fc1_proj_bwd_and_elementwise",
                 "attention_bwd", "qkv_bwd"]
        late_s = samples[len(samples) // 2:] or samples
        run = {"gemms": "fp8" if fp8 else "bf16", "layers": len(recs),
               "median_ms_late": {n: round(med([r[1][i] for r in late]), 4) for i, n in enumerate(names)},
               "first_ms": {n: round(recs[0][1][i], 4) for i, n in enumerate(names)},
               "layer_ms_late": round(med([r[2] for r in late]), 4),
               "sm_clock_mhz_median_late": med([s[0] for s in late_s]) if late_s else None,
               "power_w_median_late": med([s[1] for s in late_s]) if late_s else None,
               "clock_samples": [s[0] for s in samples][::4]}
        print({k: v for k, v in run.items() if k != "clock_samples"}, flush=True)
        out["runs"].append(run)
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)
        time.sleep(2)
    print("done", flush=True)


if __name__ == "__main__":
    main()
