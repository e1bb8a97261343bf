#!/usr/bin/env python3
# The premise of the training model's tensor clock at the power limit (cost/roofline.h
# power_clock_factor, docs/model/training.md §2): under back-to-back dense GEMMs a data-centre GPU
# runs at the clock its board power limit allows, not at its maximum clock. Run on a GPU machine
# with torch (nothing is fetched): for each precision, --seconds of back-to-back N x N x N products
# while nvidia-smi samples the SM clock, the power draw and limit, the software power-cap flag and
# the temperature every 0.5 s; writes --out (JSON): achieved TFLOP/s over the whole phase and over
# its last half, and the samples' medians.
import argparse
import json
import subprocess
import threading
import time

import torch

FIELDS = ["clocks.sm", "clocks.max.sm", "power.draw", "power.limit", "clocks_event_reasons.sw_power_cap", "temperature.gpu"]


def sampler(stop, rows, fields):
    cmd = ["nvidia-smi", "--query-gpu=" + ",".join(fields), "--format=csv,noheader,nounits", "-lms", "500"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    for line in p.stdout:
        if stop.is_set():
            break
        rows.append((time.monotonic(), [x.strip() for x in line.split(",")]))
    p.terminate()


def query_fields():
    # Older drivers name the throttle flag clocks_throttle_reasons.*.
    for flag in ("clocks_event_reasons.sw_power_cap", "clocks_throttle_reasons.sw_power_cap"):
        fields = FIELDS[:4] + [flag, FIELDS[5]]
        r = subprocess.run(["nvidia-smi", "--query-gpu=" + ",".join(fields), "--format=csv,noheader,nounits"],
                           capture_output=True, text=True)
        if r.returncode == 0:
            return fields
    return FIELDS[:4] + [FIELDS[5]]


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else None


def phase(name, step, flops_per_call, seconds, fields):
    for _ in range(5):
        step()
    torch.cuda.synchronize()
    rows, stop = [], threading.Event()
    th = threading.Thread(target=sampler, args=(stop, rows, fields), daemon=True)
    th.start()
    t0 = time.monotonic()
    marks = []  # (time, calls so far)
    calls = 0
    while time.monotonic() - t0 < seconds:
        for _ in range(20):
            step()
        calls += 20
        torch.cuda.synchronize()
        marks.append((time.monotonic(), calls))
    stop.set()
    t1 = marks[-1][0]
    half = next(m for m in marks if m[0] - t0 >= (t1 - t0) / 2)
    out = {
        "precision": name,
        "seconds": t1 - t0,
        "calls": calls,
        "tflops_whole": flops_per_call * calls / (t1 - t0) / 1e12,
        "tflops_second_half": flops_per_call * (calls - half[1]) / (t1 - half[0]) / 1e12,
        "samples": len(rows),
    }
    late = [r for t, r in rows if t >= half[0]]
    for i, f in enumerate(fields):
        vals = []
        for r in late:
            try:
                vals.append(float(r[i]) if "reasons" not in f else (1.0 if r[i].lower().startswith("active") else 0.0))
            except (ValueError, IndexError):
                pass
        out["median_" + f] = median(vals)
        if "reasons" in f:
            out["share_active_" + f] = sum(vals) / len(vals) if vals else None
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=8192)
    ap.add_argument("--seconds", type=float, default=30.0)
    args = ap.parse_args()
    n = args.n
    fields = query_fields()
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    flops = 2.0 * n * n * n
    result = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__, "n": n, "fields": fields, "phases": []}
    result["phases"].append(phase("bf16", lambda: torch.mm(a, b), flops, args.seconds, fields))
    a8 = a.to(torch.float8_e4m3fn)
    b8 = b.to(torch.float8_e4m3fn).t()  # column-major second operand, as _scaled_mm needs
    one = torch.tensor(1.0, device="cuda")
    result["phases"].append(
        phase("fp8", lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16), flops,
              args.seconds, fields))
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
