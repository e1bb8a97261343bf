#!/usr/bin/env python3
# How fast GEMMs with MXFP4 weights run on a GPU without FP4 tensor cores (Hopper), issue 29:
# gpt-oss's published checkpoint stores its experts in MXFP4 (e2m1 values, two per byte, one
# e8m0 scale per 32 along K); TensorRT-LLM runs them on Hopper with BF16 activations through its
# Triton MoE backend (triton_kernels' matmul_ogs: the weights upcast to bf16 in registers, then
# bf16 wgmma) and vLLM runs them weight-only too. This times, on one GPU, with CUDA-graph replays
# (kernels back to back, no host gaps; each graph cycles over enough weight copies that the
# weights stream from HBM, not L2):
#   dense rows (one expert's GEMM, M tokens × K → N):
#     torch_bf16      torch.matmul, bf16 × bf16 (cuBLAS)
#     triton_bf16     the Triton kernel below, bf16 weights, tl.dot
#     triton_mxfp4    the same kernel, MXFP4 weights through tl.dot_scaled (on sm_90 Triton
#                     lowers it to an upcast to bf16 + bf16 MMA)
#     triton_mxfp4_upcast  MXFP4 weights upcast by hand (bit arithmetic) then tl.dot
#     torch_fp8       torch._scaled_mm, e4m3 × e4m3, per-tensor scales (M padded to 16)
#   grouped rows (one launch over E experts, each with its own rows; grid (tiles, experts), the
#     programs past an expert's rows return at once): the same four Triton/torch kernels at
#     balanced routing (tokens × top-k / E rows each), torch._grouped_mm for bf16.
# Shapes: gpt-oss (hidden 2880, expert ffn 2880): gate_up N 5760 K 2880, down N 2880 K 2880.
# Each MXFP4 result is checked once against the dequantised weights in fp32.
# Writes --out (JSON) after every shape so a timeout still leaves data.
import argparse
import json
import math
import sys
import time

import torch
import triton
import triton.language as tl

FP4_VALUES = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]
PASSES = [("gate_up", 5760, 2880), ("down", 2880, 2880)]  # (name, N, K)
DENSE_M = [1, 8, 32, 128, 512, 2048, 8192]
# (model, experts on the GPU, top-k, tokens per step): balanced routing, tokens·k/E rows each
GROUPED = [("gpt-oss-20b", 32, 4, [256, 1024, 4096, 16384]),
           ("gpt-oss-120b", 128, 4, [1024, 4096, 16384])]
L2_DEFEAT_BYTES = 160e6  # weight copies cycled per graph: more than 3 × H100/H200 L2 (50 MB)

W_BF16, W_MXFP4, W_MXFP4_UPCAST = 0, 1, 2


def configs():
    out = []
    for bm, bn, bk, w, s in [(16, 64, 64, 4, 5), (32, 128, 64, 4, 4), (64, 128, 64, 4, 4),
                             (128, 128, 64, 8, 3), (128, 256, 64, 8, 3)]:
        out.append(triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk}, num_warps=w, num_stages=s))
    return out


def prune(configs, named_args, **kwargs):
    m = named_args["MAX_M"]
    if m <= 16:
        keep = [c for c in configs if c.kwargs["BLOCK_M"] <= 32]
    elif m <= 64:
        keep = [c for c in configs if c.kwargs["BLOCK_M"] <= 64]
    else:
        keep = [c for c in configs if c.kwargs["BLOCK_M"] >= 64]
    return keep or configs


@triton.jit
def _e2m1_to_bf16(c):
    # e2m1 code (s e1 e0 m) to bf16 bits: exponent 0 is the subnormal 0 / 0.5; otherwise
    # 2^(e-1)·(1 + m/2), i.e. bf16 exponent e + 126 and mantissa m in its top bit.
    c16 = c.to(tl.uint16)
    mag = c16 & 7
    bits = tl.where(mag < 2, mag * 0x3F00, (mag << 6) + 0x3F00)
    bits = (bits | ((c16 & 8) << 12)).to(tl.uint16)
    return bits.to(tl.bfloat16, bitcast=True)


@triton.autotune(configs=configs(), key=["MAX_M", "N", "K", "E", "FMT_ID"], prune_configs_by={"early_config_prune": prune})
@triton.jit(do_not_specialize=["MAX_M", "E", "FMT_ID"])
def gemm_kernel(a_ptr, b_ptr, bs_ptr, c_ptr, start_ptr, count_ptr, MAX_M, N, K, E, FMT_ID,
                stride_am, stride_ak, stride_be, stride_bn, stride_bk, stride_se, stride_sn, stride_sk,
                stride_cm, stride_cn,
                W_FMT: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    e = tl.program_id(1)
    count = tl.load(count_ptr + e)
    start = tl.load(start_ptr + e)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n
    if pid_m * BLOCK_M >= count:
        return
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_m = offs_m < count
    mask_n = offs_n < N
    rows = start + offs_m
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rows[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_base = b_ptr + e * stride_be
    if W_FMT == 0:
        b_ptrs = b_base + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    else:
        offs_kp = tl.arange(0, BLOCK_K // 2)
        b_ptrs = b_base + offs_kp[:, None] * stride_bk + offs_n[None, :] * stride_bn
        offs_ks = tl.arange(0, BLOCK_K // 32)
        s_ptrs = bs_ptr + e * stride_se + offs_n[:, None] * stride_sn + offs_ks[None, :] * stride_sk
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=mask_m[:, None], other=0.0)
        if W_FMT == 0:
            b = tl.load(b_ptrs, mask=mask_n[None, :], other=0.0)
            acc = tl.dot(a, b, acc)
            b_ptrs += BLOCK_K * stride_bk
        else:
            b = tl.load(b_ptrs, mask=mask_n[None, :], other=0)
            s = tl.load(s_ptrs, mask=mask_n[:, None], other=127)
            if W_FMT == 1:
                acc = tl.dot_scaled(a, None, "bf16", b, s, "e2m1", acc=acc)
            else:
                lo = _e2m1_to_bf16(b & 0xF)
                hi = _e2m1_to_bf16(b >> 4)
                w = tl.reshape(tl.permute(tl.join(lo, hi), (0, 2, 1)), (BLOCK_K, BLOCK_N))
                sc = (tl.trans(s).to(tl.uint16) << 7).to(tl.uint16).to(tl.bfloat16, bitcast=True)  # 2^(s-127)
                sc = tl.reshape(tl.broadcast_to(tl.reshape(sc, (BLOCK_K // 32, 1, BLOCK_N)),
                                                (BLOCK_K // 32, 32, BLOCK_N)), (BLOCK_K, BLOCK_N))
                acc = tl.dot(a, w * sc, acc)
            b_ptrs += (BLOCK_K // 2) * stride_bk
            s_ptrs += (BLOCK_K // 32) * stride_sk
        a_ptrs += BLOCK_K * stride_ak
    c_ptrs = c_ptr + rows[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.bfloat16), mask=mask_m[:, None] & mask_n[None, :])


class Weights:
    """E experts' (N, K) weights: bf16, and MXFP4 (codes packed along K, low nibble first; e8m0
    scales (N, K/32)), plus the dequantised values of expert 0 for the check."""

    def __init__(self, e, n, k, fmt):
        dev = "cuda"
        self.e, self.n, self.k = e, n, k
        if fmt == W_BF16:
            self.w = torch.randn(e, n, k, device=dev, dtype=torch.bfloat16) * 0.05
            self.s = self.w  # unused
            self.bytes = e * n * k * 2
        else:
            codes = torch.randint(0, 16, (e, n, k), device=dev, dtype=torch.uint8)
            self.w = (codes[..., 0::2] | (codes[..., 1::2] << 4)).contiguous()  # (E, N, K/2)
            self.s = torch.randint(122, 126, (e, n, k // 32), device=dev, dtype=torch.uint8)
            lut = torch.tensor(FP4_VALUES, device=dev, dtype=torch.float32)
            vals = lut[codes[0].long()]  # (N, K)
            self.deq0 = vals * torch.exp2(self.s[0].float() - 127).repeat_interleave(32, dim=1)
            del codes
            self.bytes = e * n * k // 2 + e * n * k // 32

    def strides(self, fmt):
        if fmt == W_BF16:
            return self.w.stride(0), self.w.stride(1), self.w.stride(2), 0, 0, 0
        return (self.w.stride(0), self.w.stride(1), self.w.stride(2),
                self.s.stride(0), self.s.stride(1), self.s.stride(2))


def launch(a, wt, fmt, c, start, count, max_m):
    sbe, sbn, sbk, sse, ssn, ssk = wt.strides(fmt)

    def grid(meta):
        return (triton.cdiv(max_m, meta["BLOCK_M"]) * triton.cdiv(wt.n, meta["BLOCK_N"]), wt.e)

    gemm_kernel[grid](a, wt.w, wt.s, c, start, count, max_m, wt.n, wt.k, wt.e, fmt,
                      a.stride(0), a.stride(1), sbe, sbn, sbk, sse, ssn, ssk, c.stride(0), c.stride(1),
                      W_FMT=fmt)


def graph_ms(fns, reps=20, min_calls=12):
    """Per-call ms from replays of one CUDA graph calling fns round-robin (≥ min_calls calls)."""
    for f in fns:
        f()
    torch.cuda.synchronize()
    rounds = max(1, math.ceil(min_calls / len(fns)))
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for f in fns:
            f()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    with torch.cuda.graph(g):
        for _ in range(rounds):
            for f in fns:
                f()
    g.replay()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        g.replay()
        e1.record()
        e1.synchronize()
        ts.append(e0.elapsed_time(e1) / (rounds * len(fns)))
    del g
    return sorted(ts)[reps // 2]


def copies_for(nbytes):
    return max(1, min(24, math.ceil(L2_DEFEAT_BYTES / nbytes)))


def check(out, a, deq):
    ref = a.float() @ deq.t()
    err = (out.float() - ref).abs().max().item() / max(ref.abs().max().item(), 1e-30)
    return round(err, 5)


def dense_rows(name, n, k, m, errors):
    rows = []
    flops = 2.0 * m * n * k
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    start = torch.zeros(1, device="cuda", dtype=torch.int32)
    count = torch.full((1,), m, device="cuda", dtype=torch.int32)
    base = {"kind": "dense", "pass": name, "m": m, "n": n, "k": k, "flops": flops}

    def add(kernel, ms, wbytes, **extra):
        r = dict(base, kernel=kernel, ms=round(ms, 5), tflops=round(flops / ms / 1e9, 2),
                 weight_bytes=wbytes, weight_gbps=round(wbytes / ms / 1e6, 1), **extra)
        rows.append(r)
        print(f"  {name} M={m} {kernel}: {ms * 1e3:.1f} us {r['tflops']} TFLOPS {r['weight_gbps']} GB/s", flush=True)

    # bf16 references
    wb = [Weights(1, n, k, W_BF16) for _ in range(copies_for(n * k * 2))]
    try:
        add("torch_bf16", graph_ms([lambda w=w: torch.matmul(a, w.w[0].t(), out=c) for w in wb]), n * k * 2)
    except Exception as e:  # noqa: BLE001
        errors.append(f"{name} {m} torch_bf16: {e}"[:300])
    try:
        add("triton_bf16", graph_ms([lambda w=w: launch(a, w, W_BF16, c, start, count, m) for w in wb]), n * k * 2)
    except Exception as e:  # noqa: BLE001
        errors.append(f"{name} {m} triton_bf16: {e}"[:300])
    try:
        mp = max(16, m)
        a8 = torch.randn(mp, k, device="cuda").to(torch.float8_e4m3fn)
        w8 = [w.w[0].to(torch.float8_e4m3fn) for w in wb]  # (N, K) row-major: .t() is column-major
        one = torch.ones((), device="cuda", dtype=torch.float32)
        add("torch_fp8", graph_ms([lambda w=w: torch._scaled_mm(a8, w.t(), scale_a=one, scale_b=one,
                                                                out_dtype=torch.bfloat16, use_fast_accum=True)
                                   for w in w8]), n * k, m_run=mp)
        del w8, a8
    except Exception as e:  # noqa: BLE001
        errors.append(f"{name} {m} torch_fp8: {e}"[:300])
    del wb
    torch.cuda.empty_cache()
    # MXFP4
    w4 = [Weights(1, n, k, W_MXFP4) for _ in range(copies_for(n * k // 2))]
    for kernel, fmt in (("triton_mxfp4", W_MXFP4), ("triton_mxfp4_upcast", W_MXFP4_UPCAST)):
        try:
            launch(a, w4[0], fmt, c, start, count, m)
            torch.cuda.synchronize()
            err = check(c, a, w4[0].deq0)
            add(kernel, graph_ms([lambda w=w: launch(a, w, fmt, c, start, count, m) for w in w4]),
                w4[0].bytes, max_rel_err=err, best_config=str(gemm_kernel.best_config))
        except Exception as e:  # noqa: BLE001
            errors.append(f"{name} {m} {kernel}: {e}"[:400])
    del w4
    torch.cuda.empty_cache()
    return rows


def grouped_rows(model, experts, top_k, tokens, name, n, k, errors):
    rows = []
    per = tokens * top_k // experts
    m_total = per * experts
    flops = 2.0 * m_total * n * k
    a = torch.randn(m_total, k, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(m_total, n, device="cuda", dtype=torch.bfloat16)
    counts = torch.full((experts,), per, device="cuda", dtype=torch.int32)
    starts = torch.arange(0, m_total, per, device="cuda", dtype=torch.int32)
    base = {"kind": "grouped", "model": model, "experts": experts, "top_k": top_k, "tokens": tokens,
            "rows_per_expert": per, "pass": name, "m": m_total, "n": n, "k": k, "flops": flops}

    def add(kernel, ms, wbytes, **extra):
        r = dict(base, kernel=kernel, ms=round(ms, 5), tflops=round(flops / ms / 1e9, 2),
                 weight_bytes=wbytes, weight_gbps=round(wbytes / ms / 1e6, 1), **extra)
        rows.append(r)
        print(f"  {model} {name} T={tokens} ({per}/expert) {kernel}: {ms * 1e3:.1f} us {r['tflops']} TFLOPS",
              flush=True)

    wb = Weights(experts, n, k, W_BF16)
    try:
        offs = torch.arange(per, m_total + 1, per, device="cuda", dtype=torch.int32)
        wt = wb.w.transpose(-2, -1)
        add("torch_grouped_bf16", graph_ms([lambda: torch._grouped_mm(a, wt, offs=offs)]), wb.bytes)
    except Exception as e:  # noqa: BLE001
        errors.append(f"{model} {tokens} {name} torch_grouped_bf16: {e}"[:300])
    try:
        add("triton_bf16", graph_ms([lambda: launch(a, wb, W_BF16, c, starts, counts, per)]), wb.bytes)
    except Exception as e:  # noqa: BLE001
        errors.append(f"{model} {tokens} {name} triton_bf16: {e}"[:300])
    del wb
    torch.cuda.empty_cache()
    w4 = Weights(experts, n, k, W_MXFP4)
    for kernel, fmt in (("triton_mxfp4", W_MXFP4), ("triton_mxfp4_upcast", W_MXFP4_UPCAST)):
        try:
            launch(a, w4, fmt, c, starts, counts, per)
            torch.cuda.synchronize()
            err = check(c[:per], a[:per], w4.deq0)
            add(kernel, graph_ms([lambda: launch(a, w4, fmt, c, starts, counts, per)]), w4.bytes,
                max_rel_err=err, best_config=str(gemm_kernel.best_config))
        except Exception as e:  # noqa: BLE001
            errors.append(f"{model} {tokens} {name} {kernel}: {e}"[:400])
    del w4
    torch.cuda.empty_cache()
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget-s", type=float, default=330.0, help="start no shape after this many seconds")
    ap.add_argument("--smoke", action="store_true", help="two small shapes only")
    args = ap.parse_args()
    t0 = time.time()
    meta = {"torch": torch.__version__, "triton": triton.__version__, "device": torch.cuda.get_device_name(0),
            "cuda": torch.version.cuda, "capability": list(torch.cuda.get_device_capability(0)),
            "timing": "median of 20 CUDA-graph replays, each >= 12 calls cycling weight copies past L2"}
    rows, errors = [], []

    def save():
        meta["seconds"] = round(time.time() - t0, 1)
        with open(args.out, "w") as f:
            json.dump({"meta": meta, "rows": rows, "errors": errors}, f, indent=1)

    dense_m = [8, 512] if args.smoke else DENSE_M
    for name, n, k in PASSES:
        for m in dense_m:
            if time.time() - t0 > args.budget_s:
                errors.append(f"budget reached before dense {name} {m}")
                break
            rows += dense_rows(name, n, k, m, errors)
            save()
        print(f"dense {name} done at {time.time() - t0:.0f} s", flush=True)
    for model, experts, top_k, token_list in ([] if args.smoke else GROUPED):
        for tokens in token_list:
            for name, n, k in PASSES:
                if time.time() - t0 > args.budget_s:
                    errors.append(f"budget reached before grouped {model} {tokens} {name}")
                    break
                rows += grouped_rows(model, experts, top_k, tokens, name, n, k, errors)
                save()
        print(f"grouped {model} done at {time.time() - t0:.0f} s", flush=True)
    for e in errors:
        print("ERROR", e, flush=True)
    save()


if __name__ == "__main__":
    main()
