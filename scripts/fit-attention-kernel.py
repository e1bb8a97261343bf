#!/usr/bin/env python3
# Fits the model's fused-attention form (docs/model/training.md §2: MMAs at fwd/bwd fractions of the dense
# peak x kbar/(kbar + kv_half), plus one exponential per score each way at the SFU rate) to the SDPA
# timings of scripts/torch_kernel_profile.py. Usage: fit-attention-kernel.py sdpa-backends-*.json [backend]
# (H100 SXM: dense bf16 989.4 TFLOP/s, 16 exp/clk/SM against 4,096 tensor FLOPs/clk/SM). docs/validation.md.
import json, math, sys
rows=[r for r in json.load(open(sys.argv[1]))['rows'] if r['backend']==(sys.argv[2] if len(sys.argv)>2 else 'cudnn') and 'fwd_ms' in r]
peak=989.4e12; E=peak*16/4096
def model(r, ff, fb, kh, a, mode):
    s=r['seq']; b=r['batch']; h=r['heads']; d=r['head_dim']
    kbar=(s+1)/2; t=b*s
    fl=2*t*kbar*h*(2*d); ex=t*kbar*h; span=kbar/(kbar+kh)
    if mode=='sum':
        fwd=fl/(peak*ff*span)+a*ex/E; bwd=2.5*fl/(peak*fb*span)+a*ex/E
    else:
        fwd=max(fl/(peak*ff),ex/E)/span; bwd=max(2.5*fl/(peak*fb),ex/E)/span
    return fwd*1e3, bwd*1e3
for mode in ['sum']:
  best=None
  for a in ([0,0.25,0.5,0.75,1.0] if mode=='sum' else [1]):
   for ff in [x/1000 for x in range(300,1000,10)]:
    for fb in [x/1000 for x in range(300,1000,10)]:
     for kh in [0,128,256,384,512,640,768,1024,1280,1536,2048]:
      err=sum(math.log(model(r,ff,fb,kh,a,mode)[0]/r['fwd_ms'])**2+math.log(model(r,ff,fb,kh,a,mode)[1]/(r['fwdbwd_ms']-r['fwd_ms']))**2 for r in rows)
      if best is None or err<best[0]: best=(err,ff,fb,kh,a)
  print(mode,best)
  err,ff,fb,kh,a=best
  print('  '.join(f"{r['head_dim']}/{r['seq']}: {model(r,ff,fb,kh,a,mode)[0]/r['fwd_ms']-1:+.0%} {model(r,ff,fb,kh,a,mode)[1]/(r['fwdbwd_ms']-r['fwd_ms'])-1:+.0%}" for r in rows))
