#!/usr/bin/env python3
"""The build's own cost (make -f Makefile.verify bench-build).

A clean build of everything (blkmc, blkmc-mpi and the tests) in a scratch
directory with Ninja and without ccache, so that every unit is compiled:
its wall time, the compile time summed over units (what two cores share),
and the slowest units from Ninja's log. Then one-file changes rebuilt
(a file's time stamp set to now, the build run again: another build
directory of this tree recompiles those files once too, or takes them from
ccache). With --ci-log, the phase times of a
.ci/run output (its "== PHASE (at N s)" lines).

Figures only: nothing here passes or fails.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# One-file changes a developer makes, and what each rebuilds.
TOUCHED = [
    ("cli/check.cpp", "a subcommand"),
    ("model/sched/deadline/deadline.cpp", "a model's source"),
    ("tests/tags_steps_test.cpp", "a test file (its batch of seven)"),
    ("model/tags/tags.hpp", "a model's header (its search and the tests that use it)"),
]


def run(cmd, cwd, quiet=True):
    t0 = time.monotonic()
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE if quiet else None,
                       stderr=subprocess.STDOUT if quiet else None, text=True)
    if r.returncode != 0:
        sys.stderr.write((r.stdout or "")[-4000:])
        sys.exit(f"bench-build: {' '.join(cmd)} failed (exit {r.returncode})")
    return time.monotonic() - t0


def ninja_units(build):
    """(seconds, output) of each step of the last build in .ninja_log."""
    rows = {}
    with open(os.path.join(build, ".ninja_log")) as f:
        for line in f:
            if line.startswith("#"):
                continue
            start, end, _, out, _ = line.rstrip("\n").split("\t")
            rows[out] = (int(end) - int(start)) / 1000.0
    return sorted(((t, o) for o, t in rows.items()), reverse=True)


def short(out):
    return re.sub(r"^(tests/)?CMakeFiles/[^/]+\.dir/", r"\1", out).removesuffix(".o")


def ci_phases(path):
    marks = []
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"== (.*) \(at (\d+) s\)\s*$", line)
            if m:
                marks.append((m.group(1), int(m.group(2))))
            m = re.match(r"== done in (\d+) s", line)
            if m:
                marks.append(("done", int(m.group(1))))
    if not marks:
        sys.exit(f"bench-build: {path} has no '== PHASE (at N s)' lines of .ci/run")
    print(f"\n.ci/run phases ({path}):")
    for (name, at), (_, nxt) in zip(marks, marks[1:]):
        print(f"  {nxt - at:6d} s  {name}")
    if marks[-1][0] == "done":
        print(f"  {marks[-1][1]:6d} s  in all")
    else:
        print(f"  (no 'done' line: the run stopped during '{marks[-1][0]}')")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--source", default=SRC,
                    help="the tree to build (default: this one; another checkout, for a before and after)")
    ap.add_argument("--build-type", default="Release")
    ap.add_argument("--cmake-flags", default="", help="more -D flags for cmake, one string")
    ap.add_argument("--top", type=int, default=10, help="the slowest units listed")
    ap.add_argument("--dir", help="build here (default: a scratch directory, removed after)")
    ap.add_argument("--no-touch", action="store_true", help="skip the one-file rebuilds")
    ap.add_argument("--ci-log", help="a .ci/run output: print its phase times")
    a = ap.parse_args()
    if a.jobs < 1 or a.jobs > 256:
        sys.exit("bench-build: --jobs must be 1..256")
    src = os.path.abspath(a.source)
    if not os.path.isfile(os.path.join(src, "CMakeLists.txt")):
        sys.exit(f"bench-build: {src} has no CMakeLists.txt")
    if a.ci_log and not os.path.isfile(a.ci_log):
        sys.exit(f"bench-build: no file {a.ci_log}")
    if not shutil.which("ninja"):
        sys.exit("bench-build: ninja is not installed (apt-get install ninja-build)")

    scratch = a.dir or tempfile.mkdtemp(prefix="blkmc-bench-build-")
    try:
        cfg = ["cmake", "-S", src, "-B", scratch, "-G", "Ninja", f"-DCMAKE_BUILD_TYPE={a.build_type}",
               "-DBLKMC_CCACHE=OFF"] + a.cmake_flags.split()
        configure = run(cfg, src)
        wall = run(["ninja", "-C", scratch, f"-j{a.jobs}"], src)
        units = ninja_units(scratch)
        cpu = sum(t for t, _ in units)
        print(f"{src}: clean {a.build_type} build, {a.jobs} jobs, {os.cpu_count()} cores: "
              f"{wall:.0f} s wall ({wall / 60:.1f} min), configure {configure:.1f} s")
        print(f"  {len(units)} steps, {cpu:.0f} s summed ({cpu / max(wall, 1e-9):.2f} busy on average)")
        print(f"  the {a.top} slowest units:")
        for t, o in units[:a.top]:
            print(f"    {t:7.1f} s  {short(o)}")
        if not a.no_touch:
            print("  one file changed, rebuilt:")
            for path, what in TOUCHED:
                if not os.path.isfile(os.path.join(src, path)):
                    continue
                os.utime(os.path.join(src, path))
                t = run(["ninja", "-C", scratch, f"-j{a.jobs}"], src)
                print(f"    {t:7.1f} s  {path} ({what})")
    finally:
        if not a.dir:
            shutil.rmtree(scratch, ignore_errors=True)
    if a.ci_log:
        ci_phases(a.ci_log)


if __name__ == "__main__":
    main()
