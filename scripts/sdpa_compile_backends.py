#!/usr/bin/env python3
# Which attention kernel SDPA runs eager and under torch.compile (docs/validation.md, "Compiled
# attention is slower than eager attention": next time a GPU is lent, log the backend choices).
# A Llama-like causal self-attention block (q/k/v/o projections + SDPA, bf16, GQA 4:1, head dim 128)
# at 2,048 and 8,192 tokens, forward + backward; torch.profiler's CUDA kernels by name and time.
import json, os, sys, time
import torch, torch.nn as nn, torch.nn.functional as F
from torch.profiler import profile, ProfilerActivity

out = sys.argv[1]
torch.manual_seed(0)
dev = "cuda"

class Attn(nn.Module):
    def __init__(s, d=2048, h=16, kv=4):
        super().__init__()
        s.h, s.kv, s.hd = h, kv, d // h
        s.q = nn.Linear(d, d, bias=False); s.k = nn.Linear(d, kv * s.hd, bias=False)
        s.v = nn.Linear(d, kv * s.hd, bias=False); s.o = nn.Linear(d, d, bias=False)
    def forward(s, x):
        b, t, _ = x.shape
        q = s.q(x).view(b, t, s.h, s.hd).transpose(1, 2)
        k = s.k(x).view(b, t, s.kv, s.hd).transpose(1, 2)
        v = s.v(x).view(b, t, s.kv, s.hd).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        return s.o(y.transpose(1, 2).reshape(b, t, -1))

res = dict(torch=torch.__version__, device=torch.cuda.get_device_name(), runs=[])
for t, b in [(2048, 4), (8192, 1)]:
    for mode in ["eager", "compile"]:
        m = Attn().to(dev, torch.bfloat16)
        f = torch.compile(m) if mode == "compile" else m
        x = torch.randn(b, t, 2048, device=dev, dtype=torch.bfloat16, requires_grad=True)
        t0 = time.time()
        for _ in range(3):
            f(x).sum().backward()
        torch.cuda.synchronize()
        warm = time.time() - t0
        with profile(activities=[ProfilerActivity.CUDA]) as p:
            for _ in range(5):
                f(x).sum().backward()
            torch.cuda.synchronize()
        ks = {}
        for e in p.key_averages():
            if e.device_type == torch.autograd.DeviceType.CUDA or getattr(e, "device_time_total", 0) > 0:
                tt = getattr(e, "device_time_total", 0) or getattr(e, "cuda_time_total", 0)
                if tt > 0:
                    ks[e.key] = dict(us_per_step=tt / 5, calls_per_step=e.count / 5)
        top = sorted(ks.items(), key=lambda kv: -kv[1]["us_per_step"])[:15]
        attn = {k: v for k, v in ks.items() if any(w in k.lower() for w in ("flash", "fmha", "attention", "efficient", "cudnn", "sdpa", "softmax", "triton"))}
        run = dict(seq=t, batch=b, mode=mode, warm_s=round(warm, 1),
                   total_us_per_step=round(sum(v["us_per_step"] for v in ks.values()), 1),
                   attention_like=attn, top=dict(top))
        res["runs"].append(run)
        print(t, b, mode, "total %.0f us/step" % run["total_us_per_step"])
        for k, v in sorted(attn.items(), key=lambda kv: -kv[1]["us_per_step"])[:6]:
            print("   %-90s %9.1f us %4.1f calls" % (k[:90], v["us_per_step"], v["calls_per_step"]))
        json.dump(res, open(out, "w"), indent=1)
print("done")
