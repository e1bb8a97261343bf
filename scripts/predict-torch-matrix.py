#!/usr/bin/env python3
# Predictions for a torch harness matrix before it is measured (issue 28): gpuplan train for every
# run of scripts/torch_train_steps.py --matrix MATRIX on GPU, as a markdown table.
# Usage (repo root, after make build): scripts/predict-torch-matrix.py GPU MATRIX
import json, subprocess, sys
sys.path.insert(0, 'scripts')
import torch_train_steps as t
gpu = sys.argv[1]
print('| GPU | model | seq | batch | recompute | elementwise | predicted step s | predicted memory GiB | verdict |')
print('|---|---|---|---|---|---|---|---|---|')
for model, compiled, runs in t.plan(None, sys.argv[2]):
    for seq, b, rc in runs:
        ew = 'fused' if compiled else 'eager'
        a = ['build/gpuplan', 'train', '--model', f'data/calibration/pytorch/configs/{model}.json', '--gpu', gpu, '--gpus', '1',
             '--framework', 'pytorch', '--seq-len', str(seq), '--micro-batch', str(b), '--global-batch', str(b),
             '--recompute', rc, '--elementwise', ew, '--allow-longer-context', '--json']
        j = json.loads(subprocess.run(a, capture_output=True, text=True, check=True).stdout)
        print(f"| {gpu} | {model} | {seq} | {b} | {rc} | {ew} | {j['step_time_s']:.4f} | {j['memory']['total_bytes']/2**30:.1f} | {j.get('memory_verdict','fits' if j['fits'] else 'out_of_memory')} |")
