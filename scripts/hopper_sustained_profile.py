#!/usr/bin/env python3
# Two checks on scripts/hopper_layer_profile.py's figures (issue 31, fourteenth session), on one
# Hopper GPU with torch (nothing is fetched); writes --out (JSON):
#   layout     cuDNN SDPA forward and backward (causal, GQA, bf16) with q, k, v and dO laid out as
#              [b, h, s, d] contiguous (BHSD) and as [b, s, h, d] viewed as [b, h, s, d] (BSHD:
#              what a layer hands the kernel after the QKV projection, and Transformer Engine's
#              sbhd at one sequence per micro-batch), forward and backward timed apart by CUDA
#              events and the kernels named by torch.profiler
#   sustained  each kernel class of the Llama 3 8B layer (the fp8 GEMMs of its four linears,
#              forward + dgrad + wgrad; the bf16 GEMMs; cuDNN attention forward + backward) looped
#              for --seconds each while nvidia-smi samples the SM clock and the board power every
#              50 ms: the rate at the clock the board's power limit allows, against the first
#              short burst
import argparse
import json
import subprocess
import sys
import time

SEQ = 8192


def ev_ms(torch, fn, reps=7, inner=3):
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


def kernels_of(torch, fn, n=3):
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(n):
            fn()
        torch.cuda.synchronize()
    out = {}
    for ev in prof.key_averages():
        dt = getattr(ev, "device_type", None)
        if dt is not None and not str(dt).endswith("CUDA"):
            continue
        us = getattr(ev, "device_time_total", None) or getattr(ev, "cuda_time_total", 0)
        if us:
            out[ev.key[:110]] = round(us / n / 1e3, 4)
    return dict(sorted(out.items(), key=lambda kv: -kv[1])[:8])


def layout_part(torch, out):
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    for name, H, KV in (("llama3_8b_tp1", 32, 8), ("llama3_70b_tp4", 16, 2)):
        D = 128
        flops = 2.0 * 2.0 * SEQ * SEQ * D * H / 2.0
        for layout in ("bhsd", "bshd"):
            row = {"config": name, "layout": layout, "heads": H, "kv_heads": KV, "fwd_flops": flops}
            try:
                def mk(h):
                    if layout == "bhsd":
                        return torch.randn(1, h, SEQ, D, device="cuda", dtype=torch.bfloat16)
                    return torch.randn(1, SEQ, h, D, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
                q, k, v = mk(H).requires_grad_(), mk(KV).requires_grad_(), mk(KV).requires_grad_()
                g = mk(H)
                with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                    o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)

                    def fwd():
                        with torch.no_grad():
                            F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)

                    def bwd():
                        torch.autograd.grad(o, (q, k, v), g, retain_graph=True)

                    def fwdbwd():
                        o2 = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
                        torch.autograd.grad(o2, (q, k, v), g)

                    row["fwd_ms"] = ev_ms(torch, fwd)
                    row["bwd_only_ms"] = ev_ms(torch, bwd)
                    row["fwdbwd_ms"] = ev_ms(torch, fwdbwd)
                    row["bwd_kernels_ms"] = kernels_of(torch, bwd)
                row["fwd_tflops"] = round(flops / row["fwd_ms"] / 1e9, 1)
                row["bwd_tflops"] = round(2.5 * flops / row["bwd_only_ms"] / 1e9, 1)
            except Exception as e:  # noqa: BLE001
                row["error"] = str(e)[:300]
            print(row, flush=True)
            out["layout"].append(row)


def sustained_part(torch, out, seconds):
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    f8, f8b = torch.float8_e4m3fn, torch.float8_e5m2
    one = torch.ones((), device="cuda", dtype=torch.float32)
    T = SEQ
    lin = [((32 + 16) * 128, 4096), (4096, 4096), (2 * 14336, 4096), (4096, 14336)]
    fp8_calls, bf16_calls, flops = [], [], 0.0
    for N, K in lin:
        x = torch.randn(T, K, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(N, K, device="cuda", dtype=torch.bfloat16) * 0.02
        dy = torch.randn(T, N, device="cuda", dtype=torch.bfloat16)
        x8, xt8, w8, wt8 = x.to(f8), x.t().contiguous().to(f8), w.to(f8), w.t().contiguous().to(f8)
        dy8, dyt8 = dy.to(f8b), dy.t().contiguous().to(f8b)
        fp8_calls += [
            (lambda a=x8, b=w8: torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)),
            (lambda a=dy8, b=wt8: torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)),
            (lambda a=dyt8, b=xt8: torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)),
        ]
        bf16_calls += [(lambda a=x, b=w: F.linear(a, b)), (lambda a=dy, b=w: torch.mm(a, b)),
                       (lambda a=dy, b=x: torch.mm(a.t(), b))]
        flops += 3 * 2.0 * T * N * K
    H, KV, D = 32, 8, 128
    q = torch.randn(1, T, H, D, device="cuda", dtype=torch.bfloat16).transpose(1, 2).requires_grad_()
    k = torch.randn(1, T, KV, D, device="cuda", dtype=torch.bfloat16).transpose(1, 2).requires_grad_()
    v = torch.randn(1, T, KV, D, device="cuda", dtype=torch.bfloat16).transpose(1, 2).requires_grad_()
    g = torch.randn(1, T, H, D, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
    attn_flops = 3.5 * 2.0 * 2.0 * T * T * D * H / 2.0

    def attn():
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
            torch.autograd.grad(o, (q, k, v), g)

    cases = [("fp8_gemms", lambda: [c() for c in fp8_calls], flops),
             ("bf16_gemms", lambda: [c() for c in bf16_calls], flops),
             ("attention_fwd_bwd", attn, attn_flops)]
    for name, fn, fl in cases:
        row = {"kernels": name, "flops_per_call": fl}
        try:
            fn()
            torch.cuda.synchronize()
            row["burst_ms"] = ev_ms(torch, fn, reps=5, inner=1)
            smi = subprocess.Popen(["nvidia-smi", "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader,nounits",
                                    "-lms", "50"], stdout=subprocess.PIPE, text=True)
            t0 = time.time()
            times = []
            while time.time() - t0 < seconds:
                e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                e0.record()
                for _ in range(5):
                    fn()
                e1.record()
                e1.synchronize()
                times.append((round(time.time() - t0, 3), e0.elapsed_time(e1) / 5))
            smi.terminate()
            lines = smi.communicate(timeout=5)[0].strip().splitlines()
            samples = []
            for ln in lines:
                try:
                    c, p = ln.split(",")
                    samples.append((float(c), float(p)))
                except ValueError:
                    pass
            late = [ms for t, ms in times if t > seconds / 2]
            late_s = samples[len(samples) // 2:] or samples
            row.update(
                sustained_ms=round(sorted(late)[len(late) // 2], 5),
                first_ms=round(times[0][1], 5),
                sm_clock_mhz_median_late=sorted(s[0] for s in late_s)[len(late_s) // 2] if late_s else None,
                power_w_median_late=sorted(s[1] for s in late_s)[len(late_s) // 2] if late_s else None,
                clock_samples=[s[0] for s in samples][::4], power_samples=[s[1] for s in samples][::4],
                loops=len(times))
            row["burst_tflops"] = round(fl / row["burst_ms"] / 1e9, 1)
            row["sustained_tflops"] = round(fl / row["sustained_ms"] / 1e9, 1)
        except Exception as e:  # noqa: BLE001
            row["error"] = str(e)[:300]
        print({k: v for k, v in row.items() if k not in ("clock_samples", "power_samples")}, flush=True)
        out["sustained"].append(row)
        time.sleep(2)  # let the board cool between cases


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seconds", type=float, default=8.0)
    args = ap.parse_args()
    import torch
    p = torch.cuda.get_device_properties(0)
    out = {"what": "cuDNN SDPA by layout; sustained rates at the power limit (issue 31)",
           "command": " ".join(["python3"] + sys.argv), "gpu": p.name, "torch": torch.__version__,
           "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(), "layout": [], "sustained": []}
    t0 = time.time()
    for part in (lambda: layout_part(torch, out), lambda: sustained_part(torch, out, args.seconds)):
        try:
            part()
        except Exception as e:  # noqa: BLE001
            out.setdefault("errors", []).append(str(e)[:300])
        out["seconds"] = round(time.time() - t0, 1)
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)
    print("done in", out["seconds"], "s", flush=True)


if __name__ == "__main__":
    main()
