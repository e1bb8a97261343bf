#!/usr/bin/env python3
# Decode attention at gpt-oss's shape on one Hopper GPU (issue 29, s13-g): 64 query heads over 8
# KV heads (GQA 8), head dim 64, against the same GQA at head dim 128, one query token per
# sequence, bf16 KV, contiguous (not paged). Asks: at ~1,000 sequences, does the decode kernel
# read KV at the same bytes/s at head dim 64 as at 128, and what does a 128-token window layer
# (gpt-oss's sliding layers) cost against its bytes? Kernels: PyTorch SDPA flash backend with
# enable_gqa (FlashAttention-2 forward), SDPA efficient backend, and a plain bmm/softmax/bmm
# path; a read of the same K and V bytes (torch.sum) is the bandwidth reference.
# Times: CUDA-graph replays of 8 calls, median of 7 replays, per call. Writes $OUT JSON.
import json, os, sys, time
import torch
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend

out_dir = os.environ.get("OUT", ".")
dev = torch.device("cuda")
rows, errors = [], []
t0 = time.time()


def timed(fn, calls=8, reps=7):
    fn()
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(calls):
            fn()
    ts = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b) / calls)
    ts.sort()
    return ts[len(ts) // 2]


HQ, HKV = 64, 8
for hd in (64, 128):
    for B in (256, 1024):
        for L in (128, 1024, 2048, 8192):
            if B * L * HKV * hd * 4 > 40e9:
                continue
            q = torch.randn(B, HQ, 1, hd, device=dev, dtype=torch.bfloat16)
            k = torch.randn(B, HKV, L, hd, device=dev, dtype=torch.bfloat16)
            v = torch.randn(B, HKV, L, hd, device=dev, dtype=torch.bfloat16)
            kv_bytes = 2 * k.numel() * 2
            base = dict(head_dim=hd, batch=B, context=L, q_heads=HQ, kv_heads=HKV, kv_bytes=kv_bytes)

            def rec(name, fn):
                try:
                    ms = timed(fn)
                    rows.append(dict(base, kernel=name, ms=round(ms, 5), kv_gbps=round(kv_bytes / ms / 1e6, 1)))
                    print(f"hd {hd} B {B} L {L} {name}: {ms*1e3:.1f} us {kv_bytes/ms/1e6:.0f} GB/s", flush=True)
                except Exception as e:  # noqa: BLE001
                    errors.append(dict(base, kernel=name, error=str(e)[:300]))
                    print(f"hd {hd} B {B} L {L} {name}: ERROR {str(e)[:120]}", flush=True)

            rec("read_kv_sum", lambda: (k.sum(), v.sum()))

            def flash():
                with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                    return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)

            def eff():
                with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION):
                    return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)

            qg = q.view(B, HKV, HQ // HKV, hd)

            def bmm():
                s = torch.matmul(qg, k.transpose(-1, -2)) * (hd ** -0.5)
                return torch.matmul(torch.softmax(s.float(), -1).to(torch.bfloat16), v)

            rec("sdpa_flash_gqa", flash)
            rec("sdpa_efficient_gqa", eff)
            rec("bmm_softmax_bmm", bmm)
            del q, k, v, qg
            torch.cuda.empty_cache()
    with open(os.path.join(out_dir, "gqa-decode-attention.json"), "w") as f:
        json.dump(dict(meta=dict(torch=torch.__version__, device=torch.cuda.get_device_name(),
                                 cuda=torch.version.cuda, seconds=round(time.time() - t0, 1),
                                 timing="median of 7 CUDA-graph replays of 8 calls"),
                       rows=rows, errors=errors), f, indent=1)
print("done", round(time.time() - t0, 1), "s")
