#!/usr/bin/env python3
# Two memory-bound parts of a training step the model may not charge (issue 31), timed alone on
# one GPU: the optimizer step and the loss. Run on a GPU machine with torch (nothing is fetched);
# writes --out (JSON) with one row per case and the bandwidth each reaches against the bytes it
# must move at least:
#   adam      torch.optim.AdamW over P parameters held as fp32 master weights with fp32 grads,
#             fused (one multi-tensor CUDA kernel, as Megatron's distributed optimizer and TE's
#             FusedAdam run it) and foreach. Bytes at least: read param, grad, m, v and write
#             param, m, v: 7 x 4 B per parameter (the bf16 copy written back is the caller's).
#             Parameters in 16 tensors of P/16, as a shard of a model's weights.
#   xent      the loss of s tokens over a vocabulary V from bf16 logits: F.cross_entropy on the
#             logits upcast to fp32 (what Megatron's vocab-parallel cross entropy and
#             transformers' loss do), forward + backward. Bytes at least: read s x V x 2 B,
#             write the fp32 copy, read it twice (max/sum), write the fp32 gradient and its bf16
#             cast: about s x V x (2 + 4 + 8 + 4 + 2) B.
# Times are the median of CUDA-event timings of 10 repeats after 3 warm-ups.
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_kernel_profile import median_ms  # noqa: E402  (one timing helper for the benches)


def timed(torch, fn, reps=10, warm=3):
    """`warm` warm-up calls (the last is median_ms's own), then the median of `reps` timed calls."""
    for _ in range(warm - 1):
        fn()
    return median_ms(torch, fn, reps)


def adam_rows(torch, params_list):
    rows = []
    for p_total in params_list:
        n = p_total // 16
        for mode in ("fused", "foreach"):
            ps = [torch.nn.Parameter(torch.randn(n, device="cuda", dtype=torch.float32)) for _ in range(16)]
            for p in ps:
                p.grad = torch.randn_like(p)
            opt = torch.optim.AdamW(ps, lr=1e-4, fused=(mode == "fused"), foreach=(mode == "foreach"))
            ms = timed(torch, opt.step)
            nbytes = 7 * 4 * n * 16
            rows.append({"case": "adam", "mode": mode, "params": n * 16, "ms": ms,
                         "min_bytes": nbytes, "gbps": round(nbytes / (ms * 1e-3) / 1e9, 1)})
            del opt, ps
            torch.cuda.empty_cache()
    return rows


def xent_rows(torch, cases):
    rows = []
    F = torch.nn.functional
    for s, vocab in cases:
        logits = torch.randn(s, vocab, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        target = torch.randint(0, vocab, (s,), device="cuda")

        def step():
            loss = F.cross_entropy(logits.float(), target)
            loss.backward()
            logits.grad = None
        ms = timed(torch, step)
        nbytes = s * vocab * (2 + 4 + 8 + 4 + 2)
        rows.append({"case": "xent", "tokens": s, "vocab": vocab, "ms": ms, "min_bytes": nbytes,
                     "gbps": round(nbytes / (ms * 1e-3) / 1e9, 1)})
        del logits
        torch.cuda.empty_cache()
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    import torch
    t0 = time.time()
    rows = adam_rows(torch, [16 * 2**20, 256 * 2**20, 1024 * 2**20, 2048 * 2**20])
    # (tokens per micro-batch per GPU, vocabulary / TP): Llama 3 at 8k tokens, TP 1 / 4 / 8;
    # Qwen3 151,936; gpt-oss 201,088; 4k tokens.
    rows += xent_rows(torch, [(8192, 128256), (8192, 32064), (8192, 16032), (4096, 151936),
                              (4096, 201088), (2048, 128256)])
    meta = {"torch": torch.__version__, "device": torch.cuda.get_device_name(0),
            "cuda": torch.version.cuda, "seconds": round(time.time() - t0, 1)}
    with open(args.out, "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)
    print(json.dumps(meta), file=sys.stderr)
    for r in rows:
        print(json.dumps(r), file=sys.stderr)


if __name__ == "__main__":
    main()
