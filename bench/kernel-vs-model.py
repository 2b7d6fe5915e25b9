#!/usr/bin/env python3
"""blkmc's mq-deadline model against the kernel's own code, on the same runs.

For every parameter set of the `check deadline @debian:6.12` rows of
model/sched/kernel/kernel.suite (the deadline suite's workloads at the sizes
the suite checks them), the same search twice in one invocation: variant
v6.18 of blkmc's model, and Debian's 6.12 block/mq-deadline.c compiled
against blkmc's shim (the two conform on every one of these workloads:
`blkmc conform`). One thread, every property, breadth-first, no reductions;
each run three times, the median time. Prints states, states/s, the bytes
of a state vector and the visited store's bytes per state of both, the ratio of states/s, and the totals.

Usage: BLKMC=build/blkmc bench/kernel-vs-model.py [SUITE] [--kernel WHERE]
(make -f Makefile.verify bench-kernel). Needs linux-source-6.12.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

BLKMC = os.environ.get("BLKMC", "build/blkmc")


def run(args):
    out = subprocess.run([BLKMC, *args, "--bfs", "-q", "--threads", "1", "--no-reduce", "--json"],
                         capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"blkmc {' '.join(args)}: {out.stderr.strip()}")
    return json.loads(out.stdout)["stats"]


def median_run(args, n=3):
    runs = [run(args) for _ in range(n)]
    secs = statistics.median(r["seconds"] for r in runs)
    r = runs[0]
    return r["states"], secs, r["bytes_per_state"], r["state_bytes"]


def main():
    suite = "model/sched/kernel/kernel.suite"
    kernel = "debian:6.12"
    args = sys.argv[1:]
    if "--kernel" in args:
        i = args.index("--kernel")
        kernel = args[i + 1]
        del args[i:i + 2]
    if args:
        suite = args[0]
    tmp = tempfile.TemporaryDirectory()
    if kernel.startswith("debian:"):
        # The package's block/ and Makefile, unpacked once for every run.
        v = kernel[len("debian:"):]
        tar = f"/usr/src/linux-source-{v}.tar.xz"
        if not os.path.exists(tar):
            sys.exit(f"{tar} is not installed (apt-get install linux-source-{v})")
        subprocess.run(["tar", "-xf", tar, "-C", tmp.name, "--strip-components=1", "--wildcards",
                        f"linux-source-{v}/Makefile", f"linux-source-{v}/block/*"], check=True)
        kernel = tmp.name
    rows = subprocess.run([BLKMC, "suite", "--expand", suite], capture_output=True, text=True, check=True)
    params = []
    for line in rows.stdout.splitlines():
        w = line.split()
        if len(w) >= 4 and w[0] == "check" and w[1] == "deadline" and w[2] == "@debian:6.12" and w[3] not in params:
            params.append(w[3])
    if not params:
        sys.exit(f"{suite}: no `check deadline @debian:6.12` rows")
    # Only what the two models share (the kernel model adds kernel_state and
    # time_cap, left at their defaults).
    models = json.loads(subprocess.run([BLKMC, "list", "--json"], capture_output=True, text=True, check=True).stdout)
    info = next(m for m in models if m["model"] == "deadline")["params"]
    hand = {p["name"]: p["default"] for p in info}
    names = {p["name"]: p.get("names", []) for p in info}

    def named(kv):  # workload=2 -> workload=seed002-readers-writer
        k, v = kv.split("=")
        return f"{k}={names[k][int(v)]}" if names[k] and 0 <= int(v) < len(names[k]) else kv

    # A state's bytes: the vector the model lays out; B/state: the visited
    # store (vectors, parents, depths, table) over the states (large for
    # tiny runs: the table's first allocation).
    print(f"{'parameters (non-default)':<52} {'model states':>12} {'states/s':>9} {'vector':>6} {'B/state':>7} "
          f"{'kernel states':>13} {'states/s':>9} {'vector':>6} {'B/state':>7} {'ratio':>5}")
    tot = {"ms": 0, "mt": 0.0, "ks": 0, "kt": 0.0}
    for p in params:
        kv = [x for x in p.split(",") if x.split("=")[0] in hand]
        ps = [a for x in kv for a in ("-p", x)]
        ms, mt, mb, mv = median_run(["check", "deadline", "-v", "v6.18", *ps])
        ks, kt, kb, kv_bytes = median_run(["check", "deadline", "--kernel", kernel, *ps])
        tot["ms"] += ms
        tot["mt"] += mt
        tot["ks"] += ks
        tot["kt"] += kt
        shown = ",".join(named(x) for x in kv if str(hand[x.split("=")[0]]) != x.split("=")[1])
        mrate, krate = ms / max(mt, 1e-9), ks / max(kt, 1e-9)
        print(f"{shown or '-':<52} {ms:>12} {mrate:>9.0f} {mv:>6} {mb:>7.0f} {ks:>13} {krate:>9.0f} {kv_bytes:>6} "
              f"{kb:>7.0f} {krate / mrate:>5.2f}")
    mrate, krate = tot["ms"] / tot["mt"], tot["ks"] / tot["kt"]
    print(f"\n{len(params)} runs: blkmc's model {tot['ms']} states in {tot['mt']:.2f} s ({mrate:.0f} states/s); "
          f"the kernel's code {tot['ks']} states in {tot['kt']:.2f} s ({krate:.0f} states/s): "
          f"{krate / mrate:.2f} of the model's rate")


if __name__ == "__main__":
    main()
