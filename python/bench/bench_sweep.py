"""The Python side of the sweep figure in docs/performance.md ("Python module").

Times 10,000 training plans from Python, the same grid as bench/sweep_parity_bench.cpp
(BM_TrainSweep10k), three ways: train_many on 1 thread and on 2 threads (the GIL released),
and a plain loop of train() calls. Prints plans/s; compare with
    build/bench/gpuplan_bench --benchmark_filter=BM_TrainSweep10k
Usage: PYTHONPATH=build/python python3 python/bench/bench_sweep.py [--repeat N]
"""
import argparse
import time

import gpuplan


def grid():
    """Llama 3.1 70B on H100 SXM: the 10,000 requests of BM_TrainSweep10k, in its order."""
    out = []
    recompute = ["none", "selective", "full", "selective", "full"]
    for tp in (1, 2, 4, 8):
        for pp in (1, 2, 4, 5, 8):
            for dp in (1, 2, 4, 8, 16):
                for mb in (1, 2, 4, 8, 16):
                    for zero in (0, 1, 2, 3):
                        for v in range(5):
                            out.append(dict(model="llama3.1-70b", gpu="h100-sxm", tp=tp, pp=pp, dp=dp,
                                            micro_batch=mb, global_batch=dp * mb * 8, zero=zero,
                                            recompute=recompute[v], sp=v >= 3 and tp > 1, seq_len=4096))
    return out


def best_of(repeat, fn):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    reqs = grid()
    assert len(reqs) == 10_000
    gpuplan.train(**reqs[0])  # load the catalog outside the timing
    for name, fn in [
        ("train_many(threads=1)", lambda: gpuplan.train_many(reqs, threads=1)),
        ("train_many(threads=2)", lambda: gpuplan.train_many(reqs, threads=2)),
        ("[train(**r) for r in reqs]", lambda: [gpuplan.train(**r) for r in reqs]),
    ]:
        t = best_of(args.repeat, fn)
        print(f"{name:28s} {t * 1e3:8.1f} ms  {len(reqs) / t:10.0f} plans/s")


if __name__ == "__main__":
    main()
