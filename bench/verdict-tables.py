#!/usr/bin/env python3
"""Prints the README's verdict tables, measured now: for each model a matrix
of variant x property at the default parameters (verdict, counterexample
length, states, seconds), then one row per checked-in counterexample (the
check that produced it, rerun with --from-trace).

Usage: bench/verdict-tables.py [BLKMC] [MODEL[:k=v,...]...]   (BLKMC default build/blkmc)
A MODEL:k=v,... argument prints that model's matrix at those parameters (the
argument may repeat); the counterexample table comes with the first one.
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
    if "value" in p and "bound" not in p:  # an unbounded maximum
        return f"max = {p['value']}" + ("" if p.get("value_exact", True) else " (at least)")
    if v == "holds":
        return "holds"
    if v == "violated":
        return f"**violated** ({p['trace_steps']})"
    return v


def main():
    blkmc = sys.argv[1] if len(sys.argv) > 1 else "build/blkmc"
    models = {m["model"]: m for m in run(blkmc, "list", "--json")}
    wanted = sys.argv[2:] or list(models)
    tabled = set()
    for arg in wanted:
        name, _, given = arg.partition(":")
        if name not in models:
            sys.exit(f"unknown model {name}")
        m = models[name]
        overrides = [kv for kv in given.split(",") if kv]
        pargs = [x for kv in overrides for x in ("-p", kv)]
        props = [p["name"] for p in m["properties"]]
        values = {p["name"]: p["default"] for p in m["params"]}
        values.update(kv.split("=", 1) for kv in overrides)
        shown = ",".join(f"{k}={v}" for k, v in values.items())
        print(f"#### `{m['model']}` at {shown}\n")
        print("| variant | " + " | ".join(props) + " | states | seconds |")
        print("|---" * (len(props) + 3) + "|")
        for v in m["variants"]:
            r = run(blkmc, "check", m["model"], "-v", v["name"], *pargs, "--bfs", "-q", "--json")
            cells = {p["property"]: cell(p) for p in r["properties"]}
            print(f"| {v['name']} | " + " | ".join(cells[p] for p in props) +
                  f" | {r['stats']['states']:,} | {r['stats']['seconds']:.3f} |")
        print()
        if name in tabled:
            continue
        tabled.add(name)
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
