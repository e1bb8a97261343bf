#!/usr/bin/env python3
"""Plain PyTorch + Hugging Face transformers training steps on one GPU, measured as a user runs them.

Writes one row per (model, sequence, batch, recompute, eager|compile) in the schema of
../shared/data/training-runs.csv plus `measured_peak_memory_gib` (torch.cuda.max_memory_allocated
over the whole run, optimizer-state creation included) and a few harness columns (see FIELDS).

What runs is what a user writes (issue 28): the model built from its config.json in fp32 (random
weights: nothing can be fetched on the lent machines), `torch.autocast(bfloat16)`, SDPA attention,
`model(input_ids, labels=input_ids)` (transformers computes the loss over fp32-upcast logits),
`loss.backward()`, `torch.optim.AdamW(fused=True).step()`, `zero_grad(set_to_none=True)`;
optionally `gradient_checkpointing_enable()` (every decoder layer recomputed) and `torch.compile`.

Each group of runs (one model, eager or compiled) is a subprocess, so an out-of-memory run or a
compile cache cannot leak into the next group. Rows are appended as they finish, so a run cut off by
the time limit still leaves every finished row. Usage (on the GPU machine):

    python3 scripts/torch_train_steps.py --out DIR [--budget-s 450] [--gpu h100-sxm]
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = os.path.join(HERE, "..", "data", "calibration", "pytorch", "configs")

FIELDS = [
    "id", "source", "model", "model_ref", "arch", "layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab",
    "seq_len", "gpu", "num_gpus", "gpus_per_node", "tp", "pp", "vp", "dp", "cp", "ep", "sequence_parallel",
    "zero_stage", "dp_shard", "micro_batch", "global_batch_seqs", "recompute", "precision", "measured_step_time_s",
    "measured_tokens_per_s_per_gpu", "reliability", "notes", "framework", "elementwise", "tie_word_embeddings",
    "measured_peak_memory_gib",
    # harness columns
    "oom", "torch_compile", "measured_optimizer_step_s", "measured_step_time_min_s", "measured_step_time_max_s",
    "measured_peak_reserved_gib", "weights_gib", "device_total_gib", "device_free_at_start_gib", "steps_timed",
    "torch_version", "transformers_version", "cuda_version", "device_name", "attn_implementation",
]

# (model, seq, batch, recompute, compile), in the order they run: eager without recompute first
# (the most rows per second), then recompute, then torch.compile (slow to compile).
MODELS = ["llama3.2-1b", "qwen2.5-1.5b", "llama3.2-3b", "qwen2.5-3b"]
EAGER = [(2048, 1), (2048, 4), (4096, 2), (8192, 1), (8192, 2), (8192, 4)]
RECOMPUTE = [(8192, 4), (8192, 8)]
COMPILED = [("llama3.2-1b", 2048, 4), ("llama3.2-1b", 8192, 2), ("qwen2.5-1.5b", 4096, 2), ("llama3.2-3b", 8192, 1)]


# The held-out matrix (2026-11-27): models the fitted constants never saw (Qwen3 with its q/k norms and
# 128-wide heads, SmolLM2 with full multi-head attention and a small vocabulary, Qwen2.5-0.5B with a
# narrow hidden size, Qwen3-4B) and new shapes of Llama 3.2 1B (1k and 16k tokens, 3k and 6k).
# Measured once, to score the model; never fitted on (docs/validation.md, "One-GPU PyTorch runs").
HELDOUT = [
    ("qwen3-1.7b", False, [(2048, 2, "none"), (4096, 1, "none"), (4096, 4, "none"), (8192, 2, "none"),
                           (8192, 4, "none"), (8192, 4, "full"), (16384, 2, "full")]),
    ("smollm2-1.7b", False, [(2048, 4, "none"), (4096, 2, "none"), (8192, 1, "none"), (8192, 4, "none"),
                             (8192, 8, "full")]),
    ("qwen2.5-0.5b", False, [(1024, 8, "none"), (2048, 8, "none"), (4096, 4, "none"), (8192, 4, "none"),
                             (16384, 1, "none")]),
    ("llama3.2-1b", False, [(1024, 8, "none"), (3072, 2, "none"), (6144, 2, "none"), (16384, 1, "none"),
                            (16384, 4, "full")]),
    ("qwen3-4b", False, [(2048, 1, "none"), (2048, 4, "none"), (4096, 2, "none"), (8192, 1, "none"),
                         (8192, 4, "full")]),
    ("qwen3-1.7b", True, [(2048, 4, "none"), (4096, 2, "none")]),
    ("smollm2-1.7b", True, [(8192, 1, "none")]),
]


# Held out on 80 GB cards (2026-11-27, second matrix): the shapes of HELDOUT were sized for the
# 141 GB H200, so on an H100 most of them run out of memory; these are new shapes of the same models
# that the model predicts to fit in 80 GB, to score step time there as well.
HELDOUT_80GB = [
    ("qwen3-1.7b", False, [(8192, 1, "none"), (16384, 1, "full"), (2048, 4, "full")]),
    ("smollm2-1.7b", False, [(4096, 4, "full"), (12288, 1, "none")]),
    ("qwen2.5-0.5b", False, [(12288, 1, "none"), (2048, 8, "full")]),
    ("llama3.2-1b", False, [(12288, 1, "none"), (4096, 1, "none")]),
    ("qwen3-4b", False, [(4096, 1, "full"), (8192, 1, "full")]),
]


def plan(only_models=None, matrix="fitted"):
    """Eager groups of the small models first, then a compiled group, so that a run cut short by
    the time budget still has rows of every kind."""
    def eager(m):
        extra = [(8192, 8, "none")] if m.endswith("3b") else []  # out of memory on 80 GB, maybe not on 141 GB
        return (m, False, [(s, b, "none") for s, b in EAGER] + extra + [(s, b, "full") for s, b in RECOMPUTE])

    def compiled(m):
        return (m, True, [(s, b, "none") for mm, s, b in COMPILED if mm == m])

    if matrix in ("heldout", "heldout-80gb"):
        groups = HELDOUT if matrix == "heldout" else HELDOUT_80GB
        return [g for g in groups if not only_models or g[0] in only_models]
    order = [eager("llama3.2-1b"), eager("qwen2.5-1.5b"), eager("llama3.2-3b"), compiled("llama3.2-1b"),
             eager("qwen2.5-3b"), compiled("qwen2.5-1.5b"), compiled("llama3.2-3b")]
    return [g for g in order if g[2] and (not only_models or g[0] in only_models)]


def worker(args):
    """One group: one model, eager or compiled, its runs in order. Prints one JSON line per run."""
    import gc
    import torch
    import transformers
    from transformers import AutoConfig, AutoModelForCausalLM

    import tempfile
    cfg_path = os.path.join(CONFIGS, args.model + ".json")
    with open(cfg_path) as f:
        raw = json.load(f)
    raw.pop("torch_dtype", None)  # the weights are built in fp32 (master weights), whatever the release says
    tmp = tempfile.mkdtemp()
    with open(os.path.join(tmp, "config.json"), "w") as f:
        json.dump(raw, f)
    cfg = AutoConfig.from_pretrained(tmp)
    cfg.use_cache = False
    total_gib = torch.cuda.get_device_properties(0).total_memory / 2**30
    runs = json.loads(args.runs)
    for seq, batch, recompute in runs:
        row = {"model": args.model, "seq_len": seq, "micro_batch": batch, "recompute": recompute,
               "torch_compile": int(args.compile), "oom": 0, "device_total_gib": round(total_gib, 3),
               "torch_version": torch.__version__, "transformers_version": transformers.__version__,
               "cuda_version": torch.version.cuda, "device_name": torch.cuda.get_device_name(0)}
        model = opt = step_fn = ids = None
        try:
            gc.collect()
            torch.cuda.empty_cache()
            free_b, _ = torch.cuda.mem_get_info()
            row["device_free_at_start_gib"] = round(free_b / 2**30, 3)
            torch.manual_seed(0)
            with torch.device("cuda"):
                try:
                    model = AutoModelForCausalLM.from_config(cfg, dtype=torch.float32, attn_implementation="sdpa")
                except TypeError:  # transformers before the `dtype` keyword
                    model = AutoModelForCausalLM.from_config(cfg, torch_dtype=torch.float32, attn_implementation="sdpa")
            if next(model.parameters()).dtype != torch.float32:
                model = model.float()
            row["attn_implementation"] = getattr(model.config, "_attn_implementation", "")
            model.train()
            if recompute == "full":
                model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
            row["weights_gib"] = round(torch.cuda.memory_allocated() / 2**30, 4)
            opt = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=True)
            step_fn = torch.compile(model) if args.compile else model
            ids = torch.randint(0, cfg.vocab_size, (batch, seq), device="cuda")
            torch.cuda.reset_peak_memory_stats()

            def one_step(timed):
                start, mid, end = (torch.cuda.Event(enable_timing=True) for _ in range(3))
                start.record()
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    out = step_fn(input_ids=ids, labels=ids)
                out.loss.backward()
                mid.record()
                opt.step()
                opt.zero_grad(set_to_none=True)
                end.record()
                if timed:
                    end.synchronize()
                    return start.elapsed_time(end) / 1e3, mid.elapsed_time(end) / 1e3
                return None

            warmup = 3 if args.compile else 2
            for _ in range(warmup):
                one_step(False)
            torch.cuda.synchronize()
            times, opt_times = [], []
            t_end = time.time() + 8.0  # at most ~8 s of timed steps per run (at least 3 steps)
            while len(times) < 5 and (len(times) < 3 or time.time() < t_end):
                t, o = one_step(True)
                times.append(t)
                opt_times.append(o)
            times_sorted = sorted(times)
            med = times_sorted[len(times_sorted) // 2]
            row.update({"measured_step_time_s": round(med, 5), "measured_step_time_min_s": round(times_sorted[0], 5),
                        "measured_step_time_max_s": round(times_sorted[-1], 5),
                        "measured_optimizer_step_s": round(sorted(opt_times)[len(opt_times) // 2], 5),
                        "steps_timed": len(times),
                        "measured_tokens_per_s_per_gpu": round(batch * seq / med, 1)})
        except torch.OutOfMemoryError as e:
            row["oom"] = 1
            row["notes_extra"] = str(e).split("\n")[0][:200]
        except Exception as e:  # noqa: BLE001 — a failed run is recorded, not fatal to the group
            row["error"] = f"{type(e).__name__}: {str(e)[:300]}"
        row["measured_peak_memory_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 4)
        row["measured_peak_reserved_gib"] = round(torch.cuda.max_memory_reserved() / 2**30, 4)
        del model, opt, step_fn, ids
        gc.collect()
        torch.cuda.empty_cache()
        if args.compile:
            torch._dynamo.reset()
        print("ROW " + json.dumps(row), flush=True)


def to_csv_row(r, raw, gpu, date):
    compiled = r.get("torch_compile", 0) == 1
    rid = f"PT-{gpu}-{r['model']}-s{r['seq_len']}-b{r['micro_batch']}-{'ckpt' if r['recompute'] == 'full' else 'nockpt'}-{'compile' if compiled else 'eager'}"
    notes = ("out of memory" if r.get("oom") else "") + (f"; {r['notes_extra']}" if r.get("notes_extra") else "")
    if r.get("error"):
        notes = "failed: " + r["error"]
    row = {
        "id": rid, "source": f"gpuplan scripts/torch_train_steps.py ({date})", "model": r["model"],
        "model_ref": f"data/calibration/pytorch/configs/{r['model']}.json", "arch": "dense",
        "layers": raw["num_hidden_layers"], "hidden": raw["hidden_size"], "heads": raw["num_attention_heads"],
        "kv_heads": raw["num_key_value_heads"], "ffn_hidden": raw["intermediate_size"], "vocab": raw["vocab_size"],
        "seq_len": r["seq_len"], "gpu": gpu, "num_gpus": 1, "gpus_per_node": 1, "tp": 1, "pp": 1, "vp": 1, "dp": 1,
        "cp": 1, "ep": 1, "sequence_parallel": 0, "zero_stage": 0, "dp_shard": 1, "micro_batch": r["micro_batch"],
        "global_batch_seqs": r["micro_batch"], "recompute": r["recompute"], "precision": "bf16",
        "reliability": "A (measured on the named GPU by the harness)", "notes": notes, "framework": "pytorch",
        "elementwise": "fused" if compiled else "eager", "tie_word_embeddings": int(bool(raw.get("tie_word_embeddings"))),
    }
    for k in FIELDS:
        if k not in row and k in r:
            row[k] = r[k]
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", help="the folder for the rows and the log (required unless --worker)")
    ap.add_argument("--budget-s", type=float, default=450.0, help="start no group after this many seconds")
    ap.add_argument("--gpu", default=os.environ.get("GPU", ""))
    ap.add_argument("--models", default="", help="comma-separated subset of " + ",".join(MODELS))
    ap.add_argument("--matrix", choices=["fitted", "heldout", "heldout-80gb"], default="fitted",
                    help="fitted: the 2026-11-26 matrix; heldout: new models and shapes (2026-11-27); "
                         "heldout-80gb: new shapes of the same models sized for 80 GB cards")
    ap.add_argument("--compiled-only", action="store_true", help="only the torch.compile groups of the matrix")
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--model")
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("--runs")
    args = ap.parse_args()
    if args.worker:
        worker(args)
        return
    if not args.out:
        ap.error("--out is required")
    os.makedirs(args.out, exist_ok=True)
    date = time.strftime("%Y-%m-%d", time.gmtime())
    gpu = args.gpu or "unknown-gpu"
    stem = f"pytorch-{'' if args.matrix == 'fitted' else args.matrix + '-'}{gpu}-{date}"
    path = os.path.join(args.out, stem + ".csv")
    log = open(os.path.join(args.out, stem + ".log"), "a")
    t0 = time.time()
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore")
        w.writeheader()
        f.flush()
        for model, compiled, runs in plan(set(filter(None, args.models.split(","))) or None, args.matrix):
            if args.compiled_only and not compiled:
                continue
            elapsed = time.time() - t0
            if elapsed > args.budget_s:
                log.write(f"budget spent at {elapsed:.0f} s: skipped {model} compile={compiled}\n")
                continue
            with open(os.path.join(CONFIGS, model + ".json")) as cf:
                raw = json.load(cf)
            cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--model", model, "--runs", json.dumps(runs)]
            if compiled:
                cmd.append("--compile")
            log.write(f"[{elapsed:6.1f} s] {' '.join(cmd)}\n")
            log.flush()
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for line in proc.stdout:
                if line.startswith("ROW "):
                    r = json.loads(line[4:])
                    w.writerow(to_csv_row(r, raw, gpu, date))
                    f.flush()
                    print(f"[{time.time() - t0:6.1f} s] {model} compile={int(compiled)} s={r['seq_len']} b={r['micro_batch']} "
                          f"{r['recompute']}: step {r.get('measured_step_time_s', '-')} s, peak {r['measured_peak_memory_gib']} GiB"
                          f"{' OOM' if r.get('oom') else ''}{' ERROR ' + r['error'] if r.get('error') else ''}", flush=True)
                else:
                    log.write(line)
            proc.wait()
            log.write(f"group exit {proc.returncode}\n")
            log.flush()
    print(f"wrote {path} in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
