#!/usr/bin/env python3
"""Whole-process wall time of two gpuplan builds, measured as paired alternating runs.

    scripts/paired-runs.py BASE_BINARY NEW_BINARY [-n 200] -- ARGS...

Runs `BASE ARGS` and `NEW ARGS` alternately N times each (the order flips every pair, so a
burst of load from another process falls on both), output to /dev/null, and prints the
median, the 10th percentile and the minimum of each, and the median of the per-pair
differences. On a shared machine the minimum and the paired median difference are the
figures to quote: the load that inflates one run inflates its pair partner too.
docs/performance.md ("Start-up") lists the commands measured.
"""
import argparse
import os
import statistics
import sys
import time


def run_once(argv):
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        start = time.perf_counter_ns()
        pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[
            (os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
        _, status, usage = os.wait4(pid, 0)
        elapsed_ms = (time.perf_counter_ns() - start) / 1e6
    finally:
        os.close(devnull)
    code = os.waitstatus_to_exitcode(status)
    return elapsed_ms, (usage.ru_utime + usage.ru_stime) * 1e3, code


def summary(name, times):
    times = sorted(times)
    p10 = times[len(times) // 10]
    return f"{name:>5}: median {statistics.median(times):7.2f} ms  p10 {p10:7.2f} ms  min {times[0]:7.2f} ms"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("base")
    parser.add_argument("new")
    parser.add_argument("-n", type=int, default=200, help="runs of each binary (default 200)")
    argv = sys.argv[1:]
    if "--" not in argv:
        parser.error("give the arguments of both binaries after --")
    split = argv.index("--")
    ns = parser.parse_args(argv[:split])
    args = argv[split + 1:]
    base = [os.path.abspath(ns.base)] + args
    new = [os.path.abspath(ns.new)] + args
    for argv in (base, new):  # warm the page cache; a failing command is a wrong measurement
        _, _, code = run_once(argv)
        if code != 0:
            sys.exit(f"{' '.join(argv)}: exit {code}")
    wall = {"base": [], "new": []}
    cpu = {"base": [], "new": []}
    for i in range(ns.n):
        order = (("base", base), ("new", new)) if i % 2 == 0 else (("new", new), ("base", base))
        for name, argv in order:
            wall_ms, cpu_ms, _ = run_once(argv)
            wall[name].append(wall_ms)
            cpu[name].append(cpu_ms)
    print(f"gpuplan {' '.join(args)}  ({ns.n} pairs; load average {os.getloadavg()[0]:.1f})")
    for label, table in (("wall", wall), ("cpu (user+sys)", cpu)):
        print(label)
        for name in ("base", "new"):
            print(summary(name, table[name]))
        diff = [n - b for b, n in zip(table["base"], table["new"])]
        print(f" diff: median of (new - base) per pair {statistics.median(diff):+7.2f} ms")


if __name__ == "__main__":
    main()
