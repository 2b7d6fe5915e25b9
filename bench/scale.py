#!/usr/bin/env python3
"""bench/scale.py -- what blkmc's threads and stores buy, measured side by side.

Sections (all in one run, on this machine, unpinned: threads need the cores):

  threads    1 thread vs 2 threads, states/s and the ratio, on
             tags refcount fn-sees-owner 4/3/3 (default reductions, and
             --no-reduce: the 30.9M-state space) and on the scheduler row
             deadline prio-5.14 workload=fair-read-write fair-ratio; and the
             ceiling: two one-thread searches at once, the most two cores
             give work that shares nothing (memory bandwidth and cache are
             shared);
  stores     bytes per state of each store (plain, tree, hash, disk,
             bitstate) on the same rows, counting the table and the parent
             links (stats.bytes_per_state) and, for disk and bitstate, the
             disk's bytes, with the peak RSS, the chance of an omitted state
             (the lossy stores), and what 3/4 of this machine's memory holds;
  baselines  SPIN (pan -DNCORE=2) on bench/tags.pml and rumur (2 threads) on
             bench/tags.m (bench/scale-baselines.sh), the same transition
             system as blkmc --no-reduce (equal state counts), against blkmc
             on 2 threads: time to the same verdict, and the ratio;
  cfq27      the cfq workload 27 fair-ratio run (seed 004's outlier) in each
             store under --time CFQ_TIME: finished (states, time, maximum) or
             how far it got;
  mpi        mpirun -np 1, 2, 3 (one thread each) against one process: same
             states and verdicts, seconds, store and RSS over all ranks;
  largest    (only when named) tags 4/3/4 --no-reduce in the tree, disk and
             bitstate stores under --time LARGEST_TIME: how far each gets,
             and the time and space 10^9 states would take at its rate.

usage: bench/scale.py [SECTION...]   (default: every section)
environment:
  BLKMC      blkmc binary (default build/blkmc under the repository root)
  QUICK=1    small configurations and limits (a smoke test: < 1 min)
  CFQ_TIME   --time of each cfq27 run, s (default 300; QUICK 5)
  LARGEST_TIME  --time of each largest run, s (default 3600; QUICK 60)

Exit status: 0 when the verdicts of every row agree across threads, stores
and tools (an unfinished run agrees with anything), 1 when they do not, 2 on
a usage or setup error.
"""

import json
import shutil
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BLKMC = os.environ.get("BLKMC", os.path.join(ROOT, "build", "blkmc"))
QUICK = os.environ.get("QUICK") == "1"
try:
    CFQ_TIME = float(os.environ.get("CFQ_TIME", "5" if QUICK else "300"))
except ValueError:
    sys.exit("bench/scale.py: CFQ_TIME is not a number")
SECTIONS = ["threads", "stores", "baselines", "cfq27", "mpi"]  # and largest, asked for by name
STORES = ("plain", "tree", "hash", "disk", "bitstate")
try:
    LARGEST_TIME = float(os.environ.get("LARGEST_TIME", "60" if QUICK else "3600"))
except ValueError:
    sys.exit("bench/scale.py: LARGEST_TIME is not a number")
TAGS = (3, 3, 2) if QUICK else (4, 3, 3)

ROWS = {
    "tags": ("tags", "refcount",
             {"ntags": TAGS[0], "submitters": TAGS[1], "rounds": TAGS[2], "pool": 0},
             ["fn-sees-owner"], []),
    "tags-full": ("tags", "refcount",
                  {"ntags": TAGS[0], "submitters": TAGS[1], "rounds": TAGS[2], "pool": 0},
                  ["fn-sees-owner"], ["--no-reduce"]),
    "deadline": ("deadline", "prio-5.14", {"workload": "fair-read-write"}, ["fair-ratio"], []),
}
disagree = False


def title(key):
    model, variant, params, props, extra = ROWS[key]
    p = ",".join(f"{k}={v}" for k, v in params.items())
    return f"{model} {variant} {p} {' '.join(props)} {' '.join(extra)}".strip()


def command(key, flags, ranks=0):
    model, variant, params, props, extra = ROWS[key] if isinstance(key, str) else key
    cmd = [BLKMC, "check", model, "-v", variant, "--json", "-q"] + extra + list(flags)
    if ranks:
        cmd = ["mpirun", "--oversubscribe", "-np", str(ranks)] + cmd
    for k, v in params.items():
        cmd += ["-p", f"{k}={v}"]
    for p in props:
        cmd += ["--prop", p]
    return cmd


def finish(cmd, proc):
    out, err = proc.communicate()
    if proc.returncode not in (0, 1, 3):
        sys.stderr.write(f"bench/scale.py: {' '.join(cmd)} failed ({proc.returncode}): {err.strip()}\n")
        sys.exit(2)
    return json.loads(out)


def start(cmd):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def blkmc(key, *flags, ranks=0):
    cmd = command(key, flags, ranks)
    return finish(cmd, start(cmd))


def side_by_side(key, *flags):
    """Two copies of the same search at once: what two cores give work that shares nothing."""
    cmd = command(key, flags)
    procs = [start(cmd), start(cmd)]
    return [finish(cmd, p) for p in procs]


def verdicts(j):
    return {p["property"]: (p["verdict"], p.get("value")) for p in j["properties"]}


def agree(runs):
    global disagree
    done = [r for r in runs if r["stop"] in ("complete", "all properties violated")]
    if any(verdicts(r) != verdicts(done[0]) for r in done[1:]):
        disagree = True
        return "DISAGREE"
    return "agree"


def table(header, rows):
    w = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = lambda r: "| " + " | ".join(str(x).ljust(n) for x, n in zip(r, w)) + " |"
    print(line(header))
    print("|" + "|".join("-" * (n + 2) for n in w) + "|")
    for r in rows:
        print(line(r))
    print()


def human(n):
    for unit, f in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= f:
            return f"{n / f:.2f}{unit}"
    return str(int(n))


def ram_bytes():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    return 0


def threads():
    print("## Threads: states/s on 1 and 2 threads (same run)\n")
    rows = []
    for key in ("tags", "tags-full", "deadline"):
        one, two = blkmc(key, "--threads", "1"), blkmc(key, "--threads", "2")
        s1, s2 = one["stats"], two["stats"]
        same = "yes" if (s1["states"], s1["transitions"]) == (s2["states"], s2["transitions"]) else "NO"
        # Two one-thread searches at once do twice the work in the slower
        # one's time; against one alone just before, the median of 3 rounds
        # (a round varies by a quarter on a shared VM).
        ratios, pair = [], []
        for _ in range(3):
            alone = blkmc(key, "--threads", "1")["stats"]["seconds"]
            pair = side_by_side(key, "--threads", "1")
            ratios.append(2 * alone / max(max(p["stats"]["seconds"] for p in pair), 1e-9))
        ceiling = sorted(ratios)[1]
        rows.append([title(key), f"{s1['states']:,}", f"{s1['seconds']:.2f}", f"{s2['seconds']:.2f}",
                     human(s1["states_per_second"]), human(s2["states_per_second"]),
                     f"{s2['states_per_second'] / max(s1['states_per_second'], 1e-9):.2f}x",
                     f"{ceiling:.2f}x", same, agree([one, two] + pair)])
    table(["row", "states", "1 thread s", "2 threads s", "1 thread states/s", "2 threads states/s",
           "ratio", "ceiling", "same states", "verdicts"], rows)
    print("(ceiling: two one-thread searches run at once, twice the work over the slower one's time,\n"
          "against one run alone; the median of 3 rounds. No 2-thread search of the same states can\n"
          "beat it on this machine.)\n")


def stores():
    print("## Stores: bytes per state (table and parent links included)\n")
    rows, ram = [], ram_bytes()
    for key in ("tags", "tags-full", "deadline"):
        runs = []
        for store in STORES:
            j = blkmc(key, "--store", store)
            s = j["stats"]
            runs.append(j)
            disk = s.get("disk_bytes", 0)
            rows.append([title(key), store, f"{s['states']:,}", f"{s['bytes_per_state']:.1f}",
                         f"{disk / max(s['states'], 1):.1f}" if disk else "-",
                         f"{s['peak_rss_bytes'] / 2**20:.0f} MiB", f"{s['seconds']:.2f}",
                         f"{s['omission_probability']:.1e}" if s["omission_probability"] else "-",
                         human(ram * 0.75 / s["bytes_per_state"]) if s["bytes_per_state"] > 1 else "-"])
        for k in range(len(STORES) - 1):
            rows[-1 - k].append("")
        rows[-len(STORES)].append(agree(runs))
    table(["row", "store", "states", "RAM bytes/state", "disk bytes/state", "peak RSS", "seconds",
           "omission chance", "states in 3/4 of RAM", "verdicts"], rows)
    print("(disk and bitstate search without partial-order reduction, so on rows with it their\n"
          "state counts are those of --no-por.)\n")


def baselines():
    print("## Baselines: SPIN -DNCORE=2 and rumur 2 threads vs blkmc 2 threads\n")
    r = subprocess.run([os.path.join(HERE, "scale-baselines.sh"), *map(str, TAGS)],
                       capture_output=True, text=True, env=dict(os.environ, THREADS="2"))
    if r.returncode == 2:
        print(f"(baselines not run: {r.stderr.strip()})\n")
        return
    tools = {}
    for line in r.stdout.splitlines():
        f = line.split()
        if len(f) == 4:
            tools[f[0]] = (int(f[1]), float(f[2]), f[3])
    mine = {m: blkmc("tags" if m == "all" else "tags-full", "--threads", "2") for m in ("all", "none")}
    rows = []
    for name, (states, secs, verdict) in tools.items():
        for mode, j in mine.items():
            s = j["stats"]
            v = j["properties"][0]["verdict"]
            if verdict in ("holds", "violated") and v in ("holds", "violated") and v != verdict:
                global disagree
                disagree = True
            rows.append([name, f"{states:,}", f"{secs:.1f}", verdict,
                         f"blkmc {'(default reductions)' if mode == 'all' else '--no-reduce'}",
                         f"{s['states']:,}", f"{s['seconds']:.2f}", v,
                         f"{secs / max(s['seconds'], 1e-9):.1f}x faster"])
    table(["tool", "states", "seconds", "verdict", "blkmc, 2 threads", "states", "seconds", "verdict",
           "blkmc vs tool"], rows)


def cfq27():
    print(f"## cfq workload 27 fair-ratio (--bfs, --time {CFQ_TIME:g})\n")
    key = ("cfq", "deep-fix-v2", {"workload": 27, "clock": 1}, ["fair-ratio"], ["--time", str(CFQ_TIME)])
    rows = []
    for store in STORES:
        j = blkmc(key, "--store", store)
        s, p = j["stats"], j["properties"][0]
        rows.append([store, j["stop"], f"{s['states']:,}", s["max_depth"], f"{s['seconds']:.0f}",
                     f"{s['bytes_per_state']:.1f}", f"{s.get('disk_bytes', 0) / 2**20:.0f} MiB",
                     f"{s['peak_rss_bytes'] / 2**20:.0f} MiB",
                     p["verdict"] + (f" (value {p['value']})" if "value" in p else "")])
    table(["store", "stop", "states", "level", "seconds", "RAM bytes/state", "disk", "peak RSS", "verdict"],
          rows)


def largest():
    print(f"## The largest run: tags refcount 4/3/4 --no-reduce, --time {LARGEST_TIME:g} per store\n")
    key = ("tags", "refcount", {"ntags": 4, "submitters": 3, "rounds": 3 if QUICK else 4, "pool": 0},
           ["fn-sees-owner"], ["--no-reduce", "--time", str(LARGEST_TIME)])
    rows = []
    for store in ("tree", "disk", "bitstate"):
        j = blkmc(key, "--store", store)
        s, p = j["stats"], j["properties"][0]
        rate = s["states"] / max(s["seconds"], 1e-9)
        per_state = s["bytes_per_state"] + s.get("disk_bytes", 0) / max(s["states"], 1)
        rows.append([store, j["stop"], f"{s['states']:,}", f"{s['seconds']:.0f}",
                     f"{s['peak_rss_bytes'] / 2**30:.2f} GiB", f"{s.get('disk_bytes', 0) / 2**30:.2f} GiB",
                     p["verdict"], f"{1e9 / rate / 60:.0f} min, {per_state * 1e9 / 2**30:.1f} GiB"])
    table(["store", "stop", "states", "seconds", "peak RSS", "disk", "verdict",
           "10^9 states at this rate and size"], rows)


def mpi():
    print("## MPI: 1, 2 and 3 ranks on this machine (one thread each)\n")
    if not shutil.which("mpirun") or not os.path.exists(os.path.join(os.path.dirname(BLKMC), "blkmc-mpi")):
        print("(not run: no mpirun, or blkmc built without MPI)\n")
        return
    print("On one machine the ranks share its cores and memory: this is about\n"
          "exactness and capacity (the store split over the ranks), not speed.\n")
    rows = []
    for key in ("tags", "tags-full", "deadline"):
        one = blkmc(key, "--threads", "1")
        runs = [one]
        for n in (1, 2, 3):
            j = blkmc(key, "--threads", "1", ranks=n)
            runs.append(j)
            s, s1 = j["stats"], one["stats"]
            same = "yes" if (s["states"], s["transitions"]) == (s1["states"], s1["transitions"]) else "NO"
            rows.append([title(key), n, f"{s['states']:,}", f"{s['seconds']:.2f}", f"{s1['seconds']:.2f}",
                         f"{s['store_bytes'] / 2**20:.0f} MiB", f"{s['peak_rss_bytes'] / 2**20:.0f} MiB",
                         same])
        rows[-1].append(agree(runs))
        rows[-2].append("")
        rows[-3].append("")
    table(["row", "ranks", "states", "seconds", "no mpirun s", "stores (all ranks)", "RSS (all ranks)",
           "same states", "verdicts"], rows)


def main():
    want = sys.argv[1:] or SECTIONS
    for w in want:
        if w not in SECTIONS + ["largest"]:
            sys.exit(f"bench/scale.py: unknown section '{w}' (sections: {' '.join(SECTIONS)} largest)")
    if not os.access(BLKMC, os.X_OK):
        sys.exit(f"bench/scale.py: no blkmc binary at {BLKMC} (make -f Makefile.verify build)")
    print(f"# bench-scale on {os.cpu_count()} cores, {ram_bytes() / 2**30:.0f} GiB"
          f"{' (QUICK)' if QUICK else ''}\n")
    for w in want:
        globals()[w]()
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main())
