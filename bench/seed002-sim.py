#!/usr/bin/env python3
"""Seed 002's fio tables in blkmc simulate: per workload (read, write, rw on
a single disk and a 2-disk RAID-0), the completions per 1000 ticks of
v6.18 (fifo_batch 16), v6.18 with fifo_batch 1, and head-request with
fifo_batch 1, averaged over seeds, with the ratio to v6.18 (the baseline,
run in the same invocation) and the seed's own ratios beside them.

usage: bench/seed002-sim.py [BLKMC] [--ticks N] [--seeds K]
"""
import json
import subprocess
import sys

args = [a for a in sys.argv[1:]]
blkmc = "build/blkmc"
ticks, seeds = 20000, 5
i = 0
while i < len(args):
    if args[i] == "--ticks":
        ticks = int(args[i + 1]); i += 2
    elif args[i] == "--seeds":
        seeds = int(args[i + 1]); i += 2
    else:
        blkmc = args[i]; i += 1

TUNE = ["read_expire=60", "write_expire=60", "prio_aging_expire=60", "clock=1"]
CONFIGS = [("v6.18 fb16", "v6.18", 16), ("v6.18 fb1", "v6.18", 1), ("head fb1", "head-request", 1)]
# The seed's iops (origin, nr_sched_batch=1, nr_sched_batch=1 + head_request).
SEED = {
    ("read", "raid0"): (152421, 166449, 171177),
    ("write", "raid0"): (136959, 139477, 184431),
    ("rw", "raid0"): (54593 + 54581, 55363 + 55355, 56178 + 56169),
    ("read", "disk"): (15463, 15082, 15368),
    ("write", "disk"): (5949, 6283, 6575),
    ("rw", "disk"): (574 + 576, 783 + 786, 907 + 906),
}
WORKLOADS = {"seed002-read-disk": 11, "seed002-write-disk": 12, "seed002-rw-disk": 13,
             "seed002-read-raid0": 14, "seed002-write-raid0": 15, "seed002-rw-raid0": 16}


def run(wl, variant, fb, seed):
    cmd = [blkmc, "simulate", "deadline", "--variant", variant, "-q", "--json",
           "--ticks", str(ticks), "--seed", str(seed), "-p", f"workload={wl}",
           "-p", f"fifo_batch={fb}"]
    for t in TUNE:
        cmd += ["-p", t]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["figures"]


print(f"blkmc simulate, seed 002 shapes: {ticks} ticks x {seeds} seeds per cell; "
      "completions per 1000 ticks (ratio to v6.18 fb16) | seed's ratio")
print(f"{'workload':<22}" + "".join(f"{c[0]:>26}" for c in CONFIGS) + "   seek/issue (v6.18 fb16, head fb1)")
for name, wl in WORKLOADS.items():
    mode, dev = name.split("-")[1], name.split("-")[2]
    rates, seeks = [], []
    for _, variant, fb in CONFIGS:
        figs = [run(wl, variant, fb, s) for s in range(1, seeds + 1)]
        rates.append(sum(f["per_1000"] for f in figs) / seeds)
        seeks.append(sum(f["seek_distance"] / max(1, f["dispatches"]) for f in figs) / seeds)
    seed = SEED[(mode, dev)]
    cells = ""
    for k in range(3):
        cells += f"{rates[k]:>9.1f} ({rates[k] / rates[0]:.3f}) | {seed[k] / seed[0]:.3f}"
        cells = cells.rjust(26 * (k + 1))
    print(f"{name:<22}{cells}   {seeks[0]:.2f}, {seeks[2]:.2f}")
