#!/usr/bin/env python3
# Scores `gpuplan train` on measured one-GPU PyTorch runs (the training-runs schema plus
# measured_peak_memory_gib = max_memory_allocated, measured_peak_reserved_gib, oom,
# measured_optimizer_step_s, as scripts/gpu-session.sh torch writes them): step time, allocated
# and reserved peak memory, the optimizer step, and the fit verdict against the runs that ran
# out of memory. Usage: score-torch-runs.py GPUPLAN FRAMEWORK RUNS.csv... ; the transformers
# config of each run is read from configs/<model>.json beside the first RUNS.csv (or CONFIGS=dir).
# EXTRA="--catalog FILE" passes global options, TRAIN_EXTRA="--calibration FILE" train options. Prints a markdown table and the medians
# (docs/validation.md, "One-GPU PyTorch training").
import csv, json, subprocess, sys, statistics
import os
binary = sys.argv[1]; framework = sys.argv[2]; files = sys.argv[3:]
CONFIGS = os.environ.get('CONFIGS', os.path.join(os.path.dirname(os.path.abspath(files[0])), 'configs'))
GiB = 1024**3
import os
EXTRA = os.environ.get('EXTRA', '').split()
TRAIN_EXTRA = os.environ.get('TRAIN_EXTRA', '').split()  # e.g. --calibration FILE
rows_out = []
for f in files:
    for r in csv.DictReader(open(f)):
        cfg = os.path.join(CONFIGS, r['model'] + '.json')
        args = [binary] + EXTRA + ['train', '--model', cfg, '--gpu', r['gpu'], '--gpus', '1', '--framework', framework,
                '--seq-len', r['seq_len'], '--micro-batch', r['micro_batch'], '--global-batch', r['micro_batch'],
                '--recompute', r['recompute'], '--elementwise', r['elementwise'], '--allow-longer-context', '--json'] + TRAIN_EXTRA
        p = subprocess.run(args, capture_output=True, text=True)
        if p.returncode != 0:
            print('ERR', r['id'], p.stderr[:300]); continue
        j = json.loads(p.stdout)
        m = j['memory']
        tensors = max(m.get('backward_start_bytes', 0), m.get('optimizer_step_bytes', 0)) or (m['total_bytes'] - m['runtime_bytes'] - m['fragmentation_bytes'])
        out = dict(id=r['id'], gpu=r['gpu'], model=r['model'], seq=r['seq_len'], mb=r['micro_batch'], rc=r['recompute'], ew=r['elementwise'],
                   oom=r['oom'] == '1', fits=j['fits'], verdict=j.get('memory_verdict', 'fits' if j['fits'] else 'out_of_memory'),
                   pred_s=j['step_time_s'], pred_alloc=tensors / GiB, pred_res=(tensors + m['fragmentation_bytes']) / GiB,
                   pred_total=m['total_bytes'] / GiB, cap=j['memory_capacity_bytes'] / GiB, opt_s=j['breakdown']['optimizer_s'])
        if not out['oom']:
            out['meas_s'] = float(r['measured_step_time_s']); out['meas_alloc'] = float(r['measured_peak_memory_gib'])
            out['meas_res'] = float(r['measured_peak_reserved_gib']); out['meas_opt'] = float(r['measured_optimizer_step_s'])
        rows_out.append(out)
def med(v): return statistics.median([abs(x) for x in v]) * 100 if v else float('nan')
ok = [o for o in rows_out if not o['oom']]
es = [o['pred_s'] / o['meas_s'] - 1 for o in ok]
ea = [o['pred_alloc'] / o['meas_alloc'] - 1 for o in ok]
er = [o['pred_res'] / o['meas_res'] - 1 for o in ok]
eo = [o['opt_s'] / o['meas_opt'] - 1 for o in ok]
print('| run | GPU | measured s | step err | measured alloc GiB | alloc err | reserved GiB | reserved err | verdict |')
print('|---|---|---|---|---|---|---|---|---|')
for o in rows_out:
    name = f"{o['model']} s{o['seq']} b{o['mb']} {o['rc']} {o['ew']}"
    if o['oom']:
        print(f"| {name} | {o['gpu']} | OOM | | | | | | {o['verdict']} (predicted {o['pred_total']:.1f} of {o['cap']:.1f} GiB) |")
    else:
        print(f"| {name} | {o['gpu']} | {o['meas_s']:.4f} | {100*(o['pred_s']/o['meas_s']-1):+.1f}% | {o['meas_alloc']:.2f} | {100*(o['pred_alloc']/o['meas_alloc']-1):+.1f}% | {o['meas_res']:.2f} | {100*(o['pred_res']/o['meas_res']-1):+.1f}% | {o['verdict']} ({o['pred_total']:.1f} of {o['cap']:.1f}) |")
print()
print(f"runs {len(ok)} measured, {len(rows_out)-len(ok)} OOM")
print(f"step median |err| {med(es):.1f}%  bias {100*statistics.mean(es):+.1f}%")
print(f"optimizer step median |err| {med(eo):.1f}%  bias {100*statistics.mean(eo):+.1f}%")
print(f"allocated median |err| {med(ea):.1f}%  bias {100*statistics.mean(ea):+.1f}%")
print(f"reserved median |err| {med(er):.1f}%  bias {100*statistics.mean(er):+.1f}%")
oom_fits = [o for o in rows_out if o['oom'] and o['verdict'] == 'fits']
ran_oom = [o for o in rows_out if not o['oom'] and o['verdict'] == 'out_of_memory']
print(f"OOM runs reported as fitting: {len(oom_fits)} of {len(rows_out)-len(ok)}; runs that ran reported OOM: {len(ran_oom)}; tight: {sum(o['verdict']=='tight' for o in rows_out)}")
