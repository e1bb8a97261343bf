#!/usr/bin/env python3
# How fast FP8 GEMMs with DeepSeek-V3's block scales run on one Hopper GPU (issue 29), against
# the same GEMMs with one scale per tensor and bf16. DeepSeek-V3/R1 FP8 checkpoints store weights
# in e4m3 with one fp32 scale per 128x128 block (config.json quantization_config
# weight_block_size [128, 128]) and the engines quantize activations per 1x128 group; TensorRT-LLM
# runs them with DeepGEMM-style block-scale kernels on sm_90. Run on a GPU machine with torch
# (nothing is fetched); writes --out (JSON) after every shape, one row per (shape, M, variant):
#   bf16          torch.matmul, bf16 in and out (cuBLAS)
#   fp8_tensor    torch._scaled_mm, e4m3, one fp32 scale per operand (cuBLASLt)
#   fp8_block     torch._scaled_mm with 1x128 activation and 128x128 weight scales (cuBLASLt's
#                 block scaling, CUDA 12.9+), where this torch accepts them; the error says why not
#   triton_tensor a Triton FP8 GEMM (tl.dot on e4m3, wgmma on sm_90), one scale per operand
#   triton_block  the same kernel with the per-block scales multiplied into the fp32 accumulator
#                 at every 128-wide K step (the vLLM/SGLang w8a8 block-fp8 kernel's form)
# Times are per call from CUDA-graph replays (kernels back to back, no host gaps); the weights
# cycle over copies that together exceed the L2 so small-M calls stream them from HBM as a
# serving step does. TFLOP/s = 2 M N K / time. Optionally the absorbed MLA decode attention
# (MQA of 128 heads over a 576-wide latent key, 512-wide value) in PyTorch bmm, bf16.
import argparse
import json
import math
import os
import sys
import time

# (name, N, K): DeepSeek-V3's GEMMs (config.json: hidden 7168, q_lora_rank 1536,
# kv_lora_rank 512 + rope 64, 128 heads x (128 nope + 64 rope) queries, v_head 128,
# intermediate 18432 dense, moe_intermediate 2048 per routed and shared expert).
SHAPES = [
    ("q_a", 1536, 7168),
    ("kv_a", 576, 7168),
    ("q_b", 24576, 1536),
    ("kv_b", 32768, 512),
    ("o", 7168, 16384),
    ("expert_gate_up", 4096, 7168),
    ("expert_down", 7168, 2048),
    ("dense_gate_up", 36864, 7168),
    ("dense_down", 7168, 18432),
]
MS = [16, 64, 256, 1024, 4096, 16384]
L2_SPAN_BYTES = 192 << 20  # weights cycled over at least this many bytes (H100/H200 L2: 50 MiB)


def graph_ms(torch, fns, reps):
    """Median per-call ms over `reps` replays of a CUDA graph calling each of fns once."""
    for f in fns[:2]:
        f()
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fns[0]()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
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
        ts.append(e0.elapsed_time(e1) / len(fns))
    del g
    return sorted(ts)[reps // 2]


def make_triton_kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def fp8_gemm(A, B, C, As, Bs, M, N, K, s_am, s_bn, s_cm, s_asm, s_ask, s_bsn, s_bsk,
                 BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr,
                 BLOCK_SCALE: tl.constexpr):
        pid = tl.program_id(0)
        num_m = tl.cdiv(M, BM)
        num_n = tl.cdiv(N, BN)
        in_group = GROUP_M * num_n
        first_m = (pid // in_group) * GROUP_M
        size_m = tl.minimum(num_m - first_m, GROUP_M)
        pid_m = first_m + ((pid % in_group) % size_m)
        pid_n = (pid % in_group) // size_m
        offs_m = (pid_m * BM + tl.arange(0, BM)) % M
        offs_n = (pid_n * BN + tl.arange(0, BN)) % N
        offs_k = tl.arange(0, BK)
        a_ptrs = A + offs_m[:, None] * s_am + offs_k[None, :]
        b_ptrs = B + offs_n[None, :] * s_bn + offs_k[:, None]
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        if BLOCK_SCALE:
            as_ptrs = As + offs_m * s_asm
            bs_ptrs = Bs + (offs_n // 128) * s_bsn
            for k in range(0, K // BK):
                a = tl.load(a_ptrs)
                b = tl.load(b_ptrs)
                a_s = tl.load(as_ptrs + k * s_ask)
                b_s = tl.load(bs_ptrs + k * s_bsk)
                acc += tl.dot(a, b) * a_s[:, None] * b_s[None, :]
                a_ptrs += BK
                b_ptrs += BK
        else:
            for k in range(0, K // BK):
                a = tl.load(a_ptrs)
                b = tl.load(b_ptrs)
                acc = tl.dot(a, b, acc)
                a_ptrs += BK
                b_ptrs += BK
            acc = acc * tl.load(As) * tl.load(Bs)
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        c_ptrs = C + rm[:, None] * s_cm + rn[None, :]
        tl.store(c_ptrs, acc.to(tl.bfloat16), mask=(rm[:, None] < M) & (rn[None, :] < N))

    def call(a, b, c, a_s, b_s, block):
        M, K = a.shape
        N = b.shape[0]
        if M <= 64:
            bm, warps, stages = 64, 4, 4
        elif M <= 256:
            bm, warps, stages = 64, 4, 4
        else:
            bm, warps, stages = 128, 8, 3
        grid = (triton.cdiv(M, bm) * triton.cdiv(N, 128),)
        fp8_gemm[grid](a, b, c, a_s, b_s, M, N, K, a.stride(0), b.stride(0), c.stride(0),
                       a_s.stride(0) if block else 0, a_s.stride(1) if block else 0,
                       b_s.stride(0) if block else 0, b_s.stride(1) if block else 0,
                       BM=bm, BN=128, BK=128, GROUP_M=8, BLOCK_SCALE=block,
                       num_warps=warps, num_stages=stages)

    return call


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget-s", type=float, default=170.0,
                    help="stop starting new shapes after this many seconds")
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--no-mla", action="store_true")
    args = ap.parse_args()
    import torch

    t_start = time.time()
    dev = torch.cuda.get_device_properties(0)
    out = {
        "what": "FP8 block-scale vs per-tensor vs bf16 GEMMs at DeepSeek-V3 shapes (issue 29)",
        "gpu": dev.name, "sms": dev.multi_processor_count, "torch": torch.__version__,
        "cuda": torch.version.cuda, "rows": [], "errors": {}, "checks": {}, "mla": [],
    }
    try:
        import triton
        out["triton"] = triton.__version__
        tri = make_triton_kernel()
    except Exception as e:  # noqa: BLE001
        out["errors"]["triton"] = str(e)[:300]
        tri = None

    def save():
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)

    f8 = torch.float8_e4m3fn
    dev_ = "cuda"
    one = torch.ones((), device=dev_, dtype=torch.float32)

    def block_scales_a(M, K):  # (M, K/128), stride (1, M): outer-dim-major, as ScaledBlas wants
        return (torch.rand(K // 128, M, device=dev_) + 0.5).t()

    def block_scales_b(N, K):  # scale_b.t() is (N/128, K/128) row-major for b.t() = (N, K)
        kb = K // 128
        return (torch.rand(math.ceil(N / 128), kb, device=dev_) + 0.5).t()

    def scaled_block(a, bt, sa, sb):
        return torch._scaled_mm(a, bt, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)

    # Layout check on one shape: cuBLASLt block scaling and the Triton kernel against a
    # dequantized fp32 reference.
    try:
        M, N, K = 256, 1536, 7168
        a = torch.randn(M, K, device=dev_).to(f8)
        w = torch.randn(N, K, device=dev_).to(f8)
        sa, sb = block_scales_a(M, K), block_scales_b(N, K)
        ref = (a.float() * sa.repeat_interleave(128, 1)) @ (
            w.float() * sb.t().repeat_interleave(128, 0).repeat_interleave(128, 1)[:N]).t()
        def triton_check():
            c = torch.empty(M, N, device=dev_, dtype=torch.bfloat16)
            tri(a, w, c, sa, sb.t(), True)
            return c

        for name, fn in (("fp8_block", lambda: scaled_block(a, w.t(), sa, sb)),
                         ("triton_block", triton_check)):
            try:
                got = fn().float()
                out["checks"][name] = float((got - ref).norm() / ref.norm())
            except Exception as e:  # noqa: BLE001
                out["checks"][name] = "error: " + str(e)[:300]
        print("checks", out["checks"], flush=True)
    except Exception as e:  # noqa: BLE001
        out["errors"]["check"] = str(e)[:300]
    save()

    for name, N, K in SHAPES:
        for M in MS:
            if time.time() - t_start > args.budget_s:
                out["errors"]["budget"] = f"stopped before {name} M={M}"
                save()
                print("budget reached", flush=True)
                break
            wbytes = N * K
            copies = max(1, min(8, math.ceil(L2_SPAN_BYTES / wbytes)))
            a16 = torch.randn(M, K, device=dev_, dtype=torch.bfloat16)
            w16 = [torch.randn(N, K, device=dev_, dtype=torch.bfloat16) for _ in range(
                max(1, min(8, math.ceil(L2_SPAN_BYTES / (2 * wbytes)))))]
            a8 = a16.to(f8)
            w8 = [torch.randn(N, K, device=dev_).to(f8) for _ in range(copies)]
            sa, sbs = block_scales_a(M, K), [block_scales_b(N, K) for _ in range(copies)]
            sbt = [s.t() for s in sbs]
            c = torch.empty(M, N, device=dev_, dtype=torch.bfloat16)
            variants = {
                "bf16": [lambda w=w: torch.matmul(a16, w.t()) for w in w16],
                "fp8_tensor": [lambda w=w: torch._scaled_mm(a8, w.t(), scale_a=one, scale_b=one,
                                                            out_dtype=torch.bfloat16) for w in w8],
                "fp8_block": [lambda i=i: scaled_block(a8, w8[i].t(), sa, sbs[i])
                              for i in range(copies)],
            }
            if tri is not None:
                variants["triton_tensor"] = [lambda w=w: tri(a8, w, c, one, one, False) for w in w8]
                variants["triton_block"] = [lambda i=i: tri(a8, w8[i], c, sa, sbt[i], True)
                                            for i in range(copies)]
            flops = 2.0 * M * N * K
            line = [f"{name:15s} M={M:6d}"]
            for vname, fns in variants.items():
                key = f"{name}/M{M}/{vname}"
                try:
                    while len(fns) < 4:
                        fns = fns + fns
                    ms = graph_ms(torch, fns, args.reps)
                    tf = flops / (ms * 1e-3) / 1e12
                    out["rows"].append({"shape": name, "M": M, "N": N, "K": K, "variant": vname,
                                        "ms": round(ms, 5), "tflops": round(tf, 1),
                                        "weight_copies": len(set(map(id, fns)))})
                    line.append(f"{vname}={tf:7.1f}")
                except Exception as e:  # noqa: BLE001 - record why, skip this variant after
                    torch.cuda.synchronize()
                    out["errors"][key] = str(e)[:300]
                    line.append(f"{vname}=ERR")
            print(" ".join(line), f"t={time.time() - t_start:.0f}s", flush=True)
            save()
            del a16, w16, a8, w8, sa, sbs, sbt, c, variants
        else:
            continue
        break

    # Absorbed MLA decode attention: per sequence, 128 query heads x 576 against a shared latent
    # key (576) and value (512, the key's first 512) of `ctx` tokens, bf16, torch.bmm.
    if not args.no_mla and time.time() - t_start < args.budget_s + 15:
        for batch, ctx in ((64, 1024), (64, 4096), (128, 2048), (256, 1024)):
            try:
                q = torch.randn(batch, 128, 576, device=dev_, dtype=torch.bfloat16)
                kv = torch.randn(batch, ctx, 576, device=dev_, dtype=torch.bfloat16)

                def attn(q=q, kv=kv):
                    s = torch.bmm(q, kv.transpose(1, 2)) * 0.0723
                    p = torch.softmax(s.float(), dim=-1).to(torch.bfloat16)
                    return torch.bmm(p, kv[:, :, :512])

                ms = graph_ms(torch, [attn] * 4, args.reps)
                flops = 2.0 * batch * 128 * ctx * (576 + 512)
                kv_bytes = batch * ctx * 576 * 2
                out["mla"].append({"batch": batch, "ctx": ctx, "ms": round(ms, 5),
                                   "tflops": round(flops / (ms * 1e-3) / 1e12, 1),
                                   "kv_tbps": round(kv_bytes / (ms * 1e-3) / 1e12, 3)})
                print("mla", out["mla"][-1], flush=True)
                del q, kv
            except Exception as e:  # noqa: BLE001
                out["errors"][f"mla/{batch}x{ctx}"] = str(e)[:300]
            save()
    out["wall_s"] = round(time.time() - t_start, 1)
    save()
    print("done", out["wall_s"], "s;", len(out["rows"]), "rows;", len(out["errors"]), "errors",
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
