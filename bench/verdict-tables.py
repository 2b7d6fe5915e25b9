#!/usr/bin/env python3
"""Prints the README's verdict tables, measured now: for each model a matrix
of variant x property at the default parameters (verdict, counterexample
length, states, seconds), then one row per checked-in counterexample (the
check that produced it, rerun with --from-trace).

Usage: bench/verdict-tables.py [BLKMC] [MODEL...]   (BLKMC default build/blkmc)
"""
import glob
import json
import os
import subprocess
import sys


def run(blkmc, *args):
    out = subprocess.run([blkmc, *args], capture_output=True, text=True)
    if out.returncode not in (0, 1, 3):
        sys.exit(f"{' '.join(args)}: exit {out.returncode}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def cell(p):
    v = p["verdict"]
    if v == "holds":
        return "holds"
    if v == "violated":
        return f"**violated** ({p['trace_steps']})"
    return v


def main():
    blkmc = sys.argv[1] if len(sys.argv) > 1 else "build/blkmc"
    only = set(sys.argv[2:])
    models = run(blkmc, "list", "--json")
    for m in models:
        if only and m["model"] not in only:
            continue
        props = [p["name"] for p in m["properties"]]
        defaults = ",".join(f"{p['name']}={p['default']}" for p in m["params"])
        print(f"#### `{m['model']}` at the defaults ({defaults})\n")
        print("| variant | " + " | ".join(props) + " | states | seconds |")
        print("|---" * (len(props) + 3) + "|")
        for v in m["variants"]:
            r = run(blkmc, "check", m["model"], "-v", v["name"], "--bfs", "-q", "--json")
            cells = {p["property"]: cell(p) for p in r["properties"]}
            print(f"| {v['name']} | " + " | ".join(cells[p] for p in props) +
                  f" | {r['stats']['states']:,} | {r['stats']['seconds']:.3f} |")
        print()
        files = sorted(glob.glob(f"counterexamples/{m['model']}/*.json"))
        if not files:
            continue
        print(f"Checked-in counterexamples of `{m['model']}` (shortest, BFS):\n")
        print("| trace | variant | params | property | steps | states | seconds |")
        print("|---|---|---|---|---|---|---|")
        for f in files:
            with open(f) as fh:
                t = json.load(fh)
            r = run(blkmc, "check", "--from-trace", f, "-q", "--json")
            p = r["properties"][0]
            params = ",".join(f"{k}={v}" for k, v in sorted(r["params"].items()))
            print(f"| {os.path.basename(f)} | {t['variant']} | {params} | {t['property']} | "
                  f"{p.get('trace_steps', '-')} | {r['stats']['states']:,} | "
                  f"{r['stats']['seconds']:.3f} |")
        print()


main()
