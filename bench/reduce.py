#!/usr/bin/env python3
"""bench/reduce.py -- what blkmc's state-space reductions buy, row by row.

For every row it runs `blkmc check ... --json -q` once per reduction mode:

    none   --no-reduce                               the full state space
    abs    --no-por --no-slice --no-symmetry         abstraction alone
    slice  --no-por --no-symmetry --no-abstract      property slicing alone
    sym    --no-por --no-slice --no-abstract         symmetry alone
    por    --no-slice --no-symmetry --no-abstract    partial-order reduction alone
    all    (no flag)                                 everything blkmc applies by default
    nopath --no-path-measure                         everything but path measures (MODES only)

and, where the row has a SPIN twin (bench/tags.pml), SPIN the way a SPIN user
runs it: `spin -a` with the model's -D parameters only (partial-order
reduction and dead-variable elimination on), `gcc -O2 -DSAFETY -DMEMLIM=..`,
`./pan -E`. It prints states and seconds as each tool reports them, with the
ratios against blkmc --no-reduce and against SPIN, and the reductions blkmc
says it applied (stats.reduction). All runs of one invocation are pinned to
one core (taskset -c $CPU) when taskset is available.

usage: bench/reduce.py [ROW...]        (or ROWS="tags-433 sbitmap" in the environment)
rows: tags-433 tags-442 tags-tagmatch sbitmap-deadlock sbitmap-nlw
      sym-deadline sym-cfq sym-none sym-bfq abs-bfq abs-cfq
      suite-deadline suite-bfq suite-cfq seed004-fair-ratio seed004-max-wait-ticks
      cfq27-fair-ratio cfq27-max-wait-ticks
groups: tags sbitmap sym abs suites seed004 cfq27 (default: every row)
environment:
  BLKMC         blkmc binary (default build/blkmc under the repository root)
  QUICK=1       smaller configurations, short limits (a smoke test: < 1 min)
  MODES         blkmc modes to run (default "none abs slice sym por all")
  TIME_LIMIT    --time for the seed004 and cfq27 rows, s (default 600; QUICK 1)
  SUITE_TIME    --time per suite run, s (default 600 like `blkmc suite`; QUICK 5)
  SUITE_GROUPS  only the first N runs of each suite (default all; QUICK 6)
  CPU           core to pin to (default 0)
  PAN_MEMLIM    pan's -DMEMLIM in MB (default min(16384, 3/4 of RAM))

A suite row runs the suite file's `check` rows the way `blkmc suite` does
(`blkmc suite --expand FILE`: rows of one model/variant/parameters share one
BFS run with all their properties, --time SUITE_TIME) and sums states and
seconds over the runs; simulate/diff/replay rows are not searches and are
left out.

Verdicts: a property may not hold in one mode (or SPIN) and be violated in
another, an exact maximum must be the same in every mode that finished, and
no lower bound from an unfinished run may exceed it. An unfinished run
(time or memory limit) agrees with anything.

Exit status: 0 when every row's verdicts agree, 1 when some differ, 2 on a
usage or setup error (unknown row, a tool that failed or printed no result).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BLKMC = os.environ.get("BLKMC", os.path.join(ROOT, "build", "blkmc"))
QUICK = os.environ.get("QUICK", "") not in ("", "0")
CPU = os.environ.get("CPU", "0")

MODE_FLAGS = {
    "none": ["--no-reduce"],
    "abs": ["--no-por", "--no-slice", "--no-symmetry"],
    "slice": ["--no-por", "--no-symmetry", "--no-abstract"],
    "sym": ["--no-por", "--no-slice", "--no-abstract"],
    "por": ["--no-slice", "--no-symmetry", "--no-abstract"],
    "all": [],
    "nopath": ["--no-path-measure"],
}
MODE_TEXT = {
    "none": "blkmc --no-reduce",
    "abs": "blkmc abstraction only",
    "slice": "blkmc slicing only",
    "sym": "blkmc symmetry only",
    "por": "blkmc partial-order only",
    "all": "blkmc (default: all)",
    "nopath": "blkmc without path measures",
}


class SetupError(Exception):
    pass


def env_num(name, default):
    v = os.environ.get(name, "")
    return float(v) if v else default


TIME_LIMIT = env_num("TIME_LIMIT", 1 if QUICK else 600)
SUITE_TIME = env_num("SUITE_TIME", 5 if QUICK else 600)
SUITE_GROUPS = int(env_num("SUITE_GROUPS", 6 if QUICK else 0))
MODES = os.environ.get("MODES", "none abs slice sym por all").split()
for m in MODES:
    if m not in MODE_FLAGS:
        sys.exit(f"reduce: unknown mode '{m}' in MODES (one of {' '.join(MODE_FLAGS)})")


def ram_mb():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 16384


PAN_MEMLIM = int(env_num("PAN_MEMLIM", min(16384, ram_mb() * 3 // 4)))

PIN = []
if shutil.which("taskset") and subprocess.run(["taskset", "-c", CPU, "true"],
                                              capture_output=True).returncode == 0:
    PIN = ["taskset", "-c", CPU]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---- rows -------------------------------------------------------------------

def tags_row(name, variant, ntags, subs, rounds, pool, prop):
    params = {"ntags": ntags, "submitters": subs, "rounds": rounds, "pool": pool}
    return {
        "name": name, "kind": "check", "model": "tags", "variant": variant,
        "params": params, "props": [prop], "extra": [],
        "title": f"tags {variant} {prop}, {ntags}/{subs}/{rounds}"
                 + (f" pool={pool}" if pool else "") + " (ntags/submitters/rounds)",
        "spin": {"NTAGS": ntags, "SUBMITTERS": subs, "ROUNDS": rounds, "POOL": pool,
                 "VARIANT": variant.upper().replace("-", "_").replace(".", "_"),
                 "prop": {"fn-sees-owner": "FN_SEES_OWNER",
                          "count-owner-only": "COUNT_OWNER_ONLY"}[prop]},
    }


def sbitmap_row(name, prop, tasks, rounds):
    params = {"tasks": tasks, "rounds": rounds, "nr_ws": 1}
    return {
        "name": name, "kind": "check", "model": "sbitmap", "variant": "72d04bdcf3f7",
        "params": params, "props": [prop], "extra": [],
        "title": f"sbitmap 72d04bdcf3f7 {prop}, tasks={tasks} rounds={rounds} nr_ws=1",
    }


def cfq27_row(name, prop):
    return {
        "name": name, "kind": "check", "model": "cfq", "variant": "deep-fix-v2",
        "params": {"workload": 27, "clock": 1}, "props": [prop],
        "extra": ["--bfs", "--time", f"{TIME_LIMIT:g}"],
        "title": f"cfq deep-fix-v2 workload=27 (cfq-deep-stale) clock=1 {prop}, "
                 f"--bfs --time {TIME_LIMIT:g}",
    }


IDENTICAL = os.path.join(HERE, "workloads", "identical-readers.wl")
IDENTICAL3 = os.path.join(HERE, "workloads", "identical-readers-3.wl")
DEEP_STALE_1 = os.path.join(HERE, "workloads", "deep-stale-1.wl")
DEEP_STALE_411 = os.path.join(HERE, "workloads", "deep-stale-4-1-1.wl")


def sched_row(name, model, variant, workload, props, params=None):
    return {
        "name": name, "kind": "check", "model": model, "variant": variant,
        "params": dict({"workload": workload}, **(params or {})), "props": props, "extra": [],
        "title": f"{model} {variant} workload={os.path.basename(str(workload))} {' '.join(props)}"
                 + "".join(f" {k}={v}" for k, v in (params or {}).items()),
    }


def suite_row(name, fam):
    path = os.path.join("model", "sched", fam, f"{fam}.suite")
    return {"name": name, "kind": "suite", "file": path,
            "title": f"{fam} suite ({path}: its check runs, BFS, --time {SUITE_TIME:g}"
                     + (f", first {SUITE_GROUPS} runs" if SUITE_GROUPS else "") + ")"}


ROWS = [
    tags_row("tags-433", "refcount", 4, 3, 2 if QUICK else 3, 0, "fn-sees-owner"),
    tags_row("tags-442", "refcount", 4, 4, 1 if QUICK else 2, 0, "fn-sees-owner"),
    tags_row("tags-tagmatch", "tag-match", 3, 2 if QUICK else 3, 2, 2, "count-owner-only"),
    sbitmap_row("sbitmap-deadlock", "deadlock", 3 if QUICK else 4, 2),
    sbitmap_row("sbitmap-nlw", "no-lost-wakeup", 3 if QUICK else 4, 2),
    # Interchangeable processes (model/sched/sched_symmetry.hpp): five
    # identical sync readers, a workload file of the bench's own.
    sched_row("sym-deadline", "deadline", "v6.18", IDENTICAL, ["conservation", "deadlock"]),
    sched_row("sym-cfq", "cfq", "3.1-rc5", IDENTICAL, ["conservation", "deadlock"]),
    sched_row("sym-none", "none", "v6.18", IDENTICAL, ["conservation", "deadlock"]),
    # BFQ v6.12: three copies (five do not finish on one core).
    sched_row("sym-bfq", "bfq", "v6.12", IDENTICAL3, ["conservation", "deadlock"]),
    # Values no step tells apart (model/sched/sched_abstraction.hpp): BFQ's
    # hw_tag detector on bfq v6.12's largest suite run; the order of eight
    # requests in service and CFQ's detector on seed 004's workload scaled
    # to one request a process (a workload file of the bench's own).
    sched_row("abs-bfq", "bfq", "v6.12", "seed002-readers-writer", ["max-wait"]),
    sched_row("abs-cfq", "cfq", "deep-fix-v2", DEEP_STALE_1, ["fair-ratio"], {"clock": 1}),
    suite_row("suite-deadline", "deadline"),
    suite_row("suite-bfq", "bfq"),
    suite_row("suite-cfq", "cfq"),
    # Seed 004's outlier scaled to 4 / 1 / 1 (docs/seed004.md): cyclic
    # processes, so path measures meet cycles that add.
    dict(sched_row("seed004-fair-ratio", "cfq", "deep-fix-v2", DEEP_STALE_411, ["fair-ratio"], {"clock": 1}),
         extra=["--bfs", "--time", f"{TIME_LIMIT:g}"]),
    dict(sched_row("seed004-max-wait-ticks", "cfq", "deep-fix-v2", DEEP_STALE_411, ["max-wait-ticks"], {"clock": 1}),
         extra=["--bfs", "--time", f"{TIME_LIMIT:g}"]),
    cfq27_row("cfq27-fair-ratio", "fair-ratio"),
    cfq27_row("cfq27-max-wait-ticks", "max-wait-ticks"),
]
GROUPS = {
    "tags": ["tags-433", "tags-442", "tags-tagmatch"],
    "sbitmap": ["sbitmap-deadlock", "sbitmap-nlw"],
    "sym": ["sym-deadline", "sym-cfq", "sym-none", "sym-bfq"],
    "abs": ["abs-bfq", "abs-cfq"],
    "suites": ["suite-deadline", "suite-bfq", "suite-cfq"],
    "suite": ["suite-deadline", "suite-bfq", "suite-cfq"],
    "cfq27": ["cfq27-fair-ratio", "cfq27-max-wait-ticks"],
    "seed004": ["seed004-fair-ratio", "seed004-max-wait-ticks"],
}


def select_rows(words):
    by_name = {r["name"]: r for r in ROWS}
    if not words:
        return list(ROWS)
    names = []
    for w in words:
        for n in GROUPS.get(w, [w]):
            if n not in by_name:
                raise SetupError(f"unknown row '{w}' (rows: {' '.join(by_name)}; "
                                 f"groups: {' '.join(GROUPS)})")
            if n not in names:
                names.append(n)
    return [r for r in ROWS if r["name"] in names]


# ---- running blkmc ------------------------------------------------------------

def blkmc_check(model, variant, params, props, extra, mode):
    cmd = [BLKMC, "check", model, "-v", variant]
    for k, v in params.items():
        cmd += ["-p", f"{k}={v}"]
    for p in props:
        cmd += ["--prop", p]
    cmd += extra + MODE_FLAGS[mode] + ["--json", "-q"]
    r = subprocess.run(PIN + cmd, capture_output=True, text=True)
    # 0: every property holds, 1: a violation, 3: unfinished (a limit);
    # anything else (or no JSON) is a failure of the run itself.
    try:
        out = json.loads(r.stdout) if r.returncode in (0, 1, 3) else None
    except json.JSONDecodeError:
        out = None
    if out is None:
        raise SetupError(f"blkmc failed (exit {r.returncode}): {' '.join(cmd)}\n"
                         + r.stderr.strip()[-2000:])
    st = out["stats"]
    return {
        "states": st["states"], "seconds": st["seconds"], "depth": st.get("max_depth"),
        "reduction": st.get("reduction", "?"), "stop": out.get("stop", "?"),
        "props": {p["property"]: p for p in out["properties"]},
    }


# ---- running SPIN (tags.pml) --------------------------------------------------

def spin_check(spec, workdir):
    d = tempfile.mkdtemp(dir=workdir)
    defs = [f"-D{k}={spec[k]}" for k in ("NTAGS", "SUBMITTERS", "ROUNDS", "POOL", "VARIANT")]
    defs.append(f"-D{spec['prop']}")
    steps = [
        ["spin", "-a"] + defs + [os.path.join(HERE, "tags.pml")],
        ["gcc", "-O2", "-DSAFETY", f"-DMEMLIM={PAN_MEMLIM}", "-o", "pan", "pan.c"],
    ]
    for cmd in steps:
        r = subprocess.run(cmd, cwd=d, capture_output=True, text=True)
        if r.returncode != 0:
            raise SetupError(f"{' '.join(cmd)} failed:\n{(r.stdout + r.stderr)[-2000:]}")
    t0 = time.monotonic()
    r = subprocess.run(PIN + ["./pan", "-E"], cwd=d, capture_output=True, text=True)
    wall = time.monotonic() - t0
    out = r.stdout + r.stderr
    m_states = re.search(r"^\s*(\d+) states, stored", out, re.M)
    m_err = re.search(r"errors: (\d+)", out)
    m_secs = re.search(r"^pan: elapsed time ([\d.e+-]+)", out, re.M)
    if not m_states or not m_err:
        raise SetupError(f"no result from pan in {d}:\n{out[-2000:]}")
    # pan prints its search time with a 10 ms clock: below 0.1 s the wall
    # time of the whole pan process is closer (it includes start-up).
    secs = float(m_secs.group(1)) if m_secs else wall
    if secs < 0.1:
        secs = wall
    errors = int(m_err.group(1))
    unfinished = ("out of memory" in out or "Search not completed" in out
                  or "max search depth too small" in out)
    verdict = "violated" if errors else ("incomplete" if unfinished else "holds")
    prop = {"fn-sees-owner" if spec["prop"] == "FN_SEES_OWNER" else "count-owner-only":
            {"verdict": verdict}}
    return {"states": int(m_states.group(1)), "seconds": secs, "depth": None,
            "reduction": "spin -a, pan -E (partial-order, dead variables)",
            "stop": {"holds": "complete", "violated": "all properties violated"}.get(
                verdict, "incomplete"),
            "props": prop}


# ---- comparing verdicts ---------------------------------------------------------

def disagreements(results):
    """results: [(label, {prop: {verdict, value?, value_exact?}})]. Returns
    a list of sentences, empty when everything agrees."""
    issues = []
    props = []
    for _, ps in results:
        props += [p for p in ps if p not in props]
    for p in props:
        seen = [(lab, ps[p]) for lab, ps in results if p in ps]
        definite = {}
        for lab, r in seen:
            if r["verdict"] in ("holds", "violated"):
                definite.setdefault(r["verdict"], []).append(lab)
        if len(definite) > 1:
            issues.append(f"{p}: " + "; ".join(f"{v} in {', '.join(l)}"
                                               for v, l in definite.items()))
        exact = {}
        lower = []
        for lab, r in seen:
            if r.get("value") is None:
                continue
            if r.get("value_exact"):
                exact.setdefault(r["value"], []).append(lab)
            else:
                lower.append((lab, r["value"]))
        if len(exact) > 1:
            issues.append(f"{p}: maximum " + "; ".join(f"{v} in {', '.join(l)}"
                                                      for v, l in exact.items()))
        for v, labs in exact.items():
            for lab, lb in lower:
                if lb > v:
                    issues.append(f"{p}: {lab} reached {lb} > the maximum {v} of "
                                  f"{', '.join(labs)}")
    return issues


# ---- formatting -------------------------------------------------------------------

def verdict_text(r):
    parts = []
    for name, p in r["props"].items():
        v = p["verdict"]
        if p.get("value") is not None and not re.search(r"<=", name):
            v = (f"max {p['value']}" if p.get("value_exact")
                 else f"{v}, >= {p['value']}")
        parts.append(v if len(r["props"]) == 1 else f"{name} {v}")
    return "; ".join(parts)


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "-"
    x = a / b
    return f"{x:.3g}" if x < 100 else f"{x:.0f}"


# blkmc's stop reasons: a search that found its verdicts is finished (every
# property violated ends it early); a limit or an interrupt is not.
FINISHED = ("complete", "all properties violated")


def complete(r):
    return r is not None and r["stop"] in FINISHED


def state_text(n):
    return f"{n:,}"


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out)


HEADER = ["tool / mode", "verdict", "states", "seconds", "states vs none",
          "time vs none", "states vs SPIN", "time vs SPIN", "stop", "reduction"]


def row_lines(results, spin):
    """results: {mode: result}; spin: result or None. Ratios only between
    finished runs (an unfinished run's states are how far it got)."""
    lines = []
    base = results.get("none")
    labelled = ([("SPIN (spin -a; pan -E)", spin)] if spin else []) + \
               [(MODE_TEXT[m], results[m]) for m in MODES if m in results]
    for label, r in labelled:
        fin = complete(r)
        vs_none = fin and complete(base) and r is not base
        vs_spin = fin and complete(spin) and r is not spin
        stop = r["stop"] + (f" (depth {r['depth']})" if not fin and r.get("depth") else "")
        lines.append([
            label, verdict_text(r), state_text(r["states"]), f"{r['seconds']:.3f}",
            ratio(r["states"], base["states"]) if vs_none else "-",
            ratio(r["seconds"], base["seconds"]) if vs_none else "-",
            ratio(r["states"], spin["states"]) if vs_spin else "-",
            ratio(r["seconds"], spin["seconds"]) if vs_spin else "-",
            stop, r["reduction"]])
    return lines


# ---- the rows' runs ------------------------------------------------------------------

def run_check_row(row, workdir):
    results = {}
    spin = None
    if "spin" in row:
        if not shutil.which("spin") or not shutil.which("gcc"):
            raise SetupError("spin or gcc not found (make -f Makefile.verify bench-reduce "
                             "installs spin)")
        log(f"== {row['name']}: spin")
        spin = spin_check(row["spin"], workdir)
    for m in MODES:
        log(f"== {row['name']}: {m}")
        results[m] = blkmc_check(row["model"], row["variant"], row["params"], row["props"],
                                 row["extra"], m)
    labelled = ([("SPIN", spin["props"])] if spin else []) + \
               [(m, results[m]["props"]) for m in results]
    return row_lines(results, spin), disagreements(labelled)


def parse_expanded(path):
    r = subprocess.run([BLKMC, "suite", "--expand", path], capture_output=True, text=True)
    if r.returncode != 0:
        raise SetupError(f"blkmc suite --expand {path} failed:\n{r.stderr[-2000:]}")
    groups = {}
    for line in r.stdout.splitlines():
        f = line.split()
        if not f or f[0] != "check":
            continue
        if len(f) != 6:
            raise SetupError(f"unexpected expanded row: {line}")
        _, model, variant, params, prop, expected = f
        g = groups.setdefault((model, variant, params), [])
        if prop not in [p for p, _ in g]:
            g.append((prop, expected))
    return groups


def expectation_misses(expects, props):
    miss = []
    for prop, exp in expects:
        p = props.get(prop)
        if p is None:
            miss.append(f"{prop}: no result")
        elif re.fullmatch(r"-?\d+", exp):
            if not (p.get("value_exact") and p.get("value") == int(exp)):
                miss.append(f"{prop}: expected {exp}, found {verdict_text({'props': {prop: p}})}")
        elif p["verdict"] != exp:
            miss.append(f"{prop}: expected {exp}, found {p['verdict']}")
    return miss


def summarize_reductions(texts):
    counts = {"abstraction": 0, "slicing": 0, "symmetry": 0, "partial-order": 0, "path measure": 0}
    for t in texts:
        for seg in t.split(";"):
            seg = seg.strip()
            for k in counts:
                if seg.startswith(k):
                    counts[k] += 1
    n = len(texts)
    used = [f"{k} {c}/{n}" for k, c in counts.items() if c]
    return ", ".join(used) if used else f"none in {n} runs"


def run_suite_row(row, workdir):
    path = os.path.join(ROOT, row["file"])
    groups = list(parse_expanded(path).items())
    if SUITE_GROUPS:
        groups = groups[:SUITE_GROUPS]
    per_mode = {m: [] for m in MODES}
    issues, warnings = [], []
    for i, ((model, variant, params), expects) in enumerate(groups):
        pmap = {} if params == "-" else dict(kv.split("=", 1) for kv in params.split(","))
        props = [p for p, _ in expects]
        log(f"== {row['name']}: run {i + 1}/{len(groups)} {model} {variant} "
            f"({len(props)} properties)")
        res = {}
        for m in MODES:
            res[m] = blkmc_check(model, variant, pmap, props,
                                 ["--bfs", "--time", f"{SUITE_TIME:g}"], m)
            per_mode[m].append(res[m])
            for s in expectation_misses(expects, res[m]["props"]):
                warnings.append(f"{model} {variant} {params} [{m}] {s}")
        for s in disagreements([(m, res[m]["props"]) for m in MODES]):
            issues.append(f"{model} {variant} {params}: {s}")
    summary = {}
    for m, rs in per_mode.items():
        unfinished = sum(1 for r in rs if not complete(r))
        summary[m] = {
            "states": sum(r["states"] for r in rs),
            "seconds": sum(r["seconds"] for r in rs),
            "stop": ("complete" if not unfinished  # every run found its verdicts
                     else f"{unfinished} of {len(rs)} runs stopped by a limit"),
            "depth": None,
            "reduction": summarize_reductions([r["reduction"] for r in rs]),
            "props": {},
            "runs": len(rs),
        }
    lines = row_lines(summary, None)
    bad = {s.split(":")[0] for s in issues}
    for ln in lines:
        ln[1] = f"{len(groups)} runs" + (f", {len(bad)} disagree" if bad else "")
    return lines, issues, warnings


# ---- main ------------------------------------------------------------------------------

def main(argv):
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__.strip())
        return 0
    words = argv or os.environ.get("ROWS", "").split()
    rows = select_rows(words)
    if not os.access(BLKMC, os.X_OK):
        raise SetupError(f"blkmc binary '{BLKMC}' not found (set BLKMC)")
    os.chdir(ROOT)  # suite files name their traces from the repository root
    if not PIN:
        log("note: taskset unavailable, runs are not pinned")
    failed = []
    out = []
    with tempfile.TemporaryDirectory(prefix="bench-reduce.") as workdir:
        for row in rows:
            warnings = []
            if row["kind"] == "suite":
                lines, issues, warnings = run_suite_row(row, workdir)
            else:
                lines, issues = run_check_row(row, workdir)
            text = [f"### {row['name']}: {row['title']}", "", table(HEADER, lines)]
            if issues:
                failed.append(row["name"])
                text += ["", "**VERDICTS DIFFER:**"] + [f"- {s}" for s in issues]
            if warnings:
                text += ["", f"note: {len(warnings)} expectation(s) of the suite file not met "
                             "(`blkmc suite` fails on these too):"]
                text += [f"- {s}" for s in warnings[:10]]
                if len(warnings) > 10:
                    text.append(f"- ... {len(warnings) - 10} more")
            out.append("\n".join(text))
            print(out[-1] + "\n", flush=True)
    spin_v = ""
    if shutil.which("spin"):
        v = subprocess.run(["spin", "-V"], capture_output=True, text=True).stdout.split()
        spin_v = f"SPIN {v[2]}, " if len(v) > 2 else ""
    print(f"{spin_v}blkmc {BLKMC}, {' '.join(PIN) or 'unpinned'}"
          f"{', QUICK' if QUICK else ''}. Ratios are row / reference (< 1: fewer states or "
          "faster than blkmc --no-reduce or SPIN), only between finished runs; seconds are "
          "each tool's own search time (pan's elapsed time, blkmc's stats.seconds); "
          "an unfinished run shows how far it got (states, BFS depth).")
    if failed:
        print(f"\nverdicts differ in: {' '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except SetupError as e:
        print(f"reduce: {e}", file=sys.stderr)
        sys.exit(2)
