#!/usr/bin/env bash
# End-to-end checks of `blkmc device` and `blkmc export --fio`: runs on real
# loop devices when the machine has root, loop devices and tracefs, and
# checks that nothing of ours is left afterwards (also after SIGINT/SIGTERM
# mid-run). Without them: the device part is skipped (exit 77).
# Usage: device_test.sh BLKMC SOURCE_DIR
set -u
B=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() {
  fail=$((fail + 1))
  echo "FAIL: $*"
  head -5 "$T/out" "$T/err" 2>/dev/null
}
expect() {  # expect RC DESCRIPTION -- command...
  local want=$1 what=$2
  shift 3
  "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  if [ "$rc" = "$want" ]; then ok; else bad "$what: exit $rc, wanted $want"; fi
}
finish() {
  echo "device_test: $pass passed, $fail failed${1:+; $1}"
  [ "$fail" = 0 ] || exit 1
  [ -z "${1:-}" ] || exit 77
  exit 0
}

# --- no device needed ---
expect 0 "export --fio" -- "$B" export gated-write-idle --fio -o "$T/job.fio" --target "$T/t.img"
[ -f "$T/job.fio" ] && [ -f "$T/job.reader.iolog" ] && ok || bad "export writes the job and its iologs"
grep -q '^prioclass=3$' "$T/job.fio" && ok || bad "the idle process has prioclass=3"
if command -v fio >/dev/null; then
  truncate -s 2M "$T/t.img"
  expect 0 "fio --parse-only accepts the job" -- fio --parse-only "$T/job.fio"
else
  echo "SKIP: fio is not installed: fio --parse-only not tested"
fi
# An unwritable job file is an error, not "written"; a process name with a
# '/' still gives an iolog the job can find; a source is never overwritten.
if [ -w /dev/full ]; then
  expect 2 "export --fio -o /dev/full" -- "$B" export gated-write --fio -o /dev/full
  grep -q "cannot write '/dev/full'" "$T/err" && ok || bad "export to /dev/full says it cannot write"
fi
printf 'device depth=4\nproc a/b dir=R sync=1 reqs=1,2\nproc a_b dir=W sync=1 reqs=9\n' >"$T/slash.wl"
expect 0 "export a process named a/b" -- "$B" export "$T/slash.wl" --fio -o "$T/slash.fio"
for log in $(sed -n 's/^read_iolog=//p' "$T/slash.fio"); do [ -f "$log" ] && ok || bad "iolog $log is missing"; done
[ "$(grep -c '^read_iolog=' "$T/slash.fio")" = 2 ] && [ "$(sed -n 's/^read_iolog=//p' "$T/slash.fio" | sort -u | wc -l)" = 2 ] \
  && ok || bad "two processes, two iologs"
cp "$T/slash.wl" "$T/keep.wl"
expect 2 "export X.wl -o X.wl" -- "$B" export "$T/slash.wl" --fio -o "$T/slash.wl"
cmp -s "$T/slash.wl" "$T/keep.wl" && ok || bad "export -o its own source changed the source"
expect 2 "unknown source" -- "$B" device run no-such-workload
expect 2 "at-head inserts refused" -- "$B" device run passthrough-head
expect 2 "unknown engine" -- "$B" device run gated-write --engine posix-aio

# --- real devices ---
why=""
[ "$(id -u)" = 0 ] || why="not root"
[ -z "$why" ] && [ ! -e /dev/loop-control ] && why="no /dev/loop-control"
[ -z "$why" ] && [ ! -d /sys/kernel/tracing ] && why="no /sys/kernel/tracing"
[ -z "$why" ] && ! command -v mkfs.ext4 >/dev/null && why="no mkfs.ext4"
if [ -n "$why" ]; then
  echo "SKIP: device runs need root, loop devices, tracefs and mkfs.ext4 ($why)"
  finish "device runs skipped: $why"
fi

# What of ours exists: loop devices over our backing files, mounts, tracefs
# instances, temporary directories.
ours() {
  {
    losetup -a | grep blkmc-dev-
    grep blkmc-dev- /proc/mounts
    ls /sys/kernel/tracing/instances 2>/dev/null | grep '^blkmc-'
    ls /dev/shm | grep '^blkmc-dev-'
  } 2>/dev/null
}
clean() {  # clean DESCRIPTION
  local left
  left=$(ours)
  if [ -z "$left" ]; then ok; else bad "$1: left behind: $left"; fi
}
tracefs_before=$(grep -c ' /sys/kernel/tracing ' /proc/mounts)
clean "before the tests"

if command -v setpriv >/dev/null; then
  expect 5 "not root: exit 5" -- setpriv --reuid=65534 --regid=65534 --clear-groups "$B" device run gated-write
  [ "$(wc -l <"$T/err")" = 1 ] && grep -q "need root" "$T/err" && ok || bad "not root: one line"
fi

expect 0 "device run --json" -- "$B" device run gated-write --repeat 2 --json -p fifo_batch=4
python3 - "$T/out" <<'PY' && ok || bad "device run --json content"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["workload"] == "gated-write" and j["scheduler"] == "mq-deadline", j
assert j["runs_total"] == 2 and len(j["runs"]) == 2
assert j["model_wait"] == 8 and j["model_worst_wait"] == 8, j
assert j["kernel_wait"] == 8, j["kernel_wait"]
assert j["conforming_runs"] == 2 and j["match"], j["runs"][0]["nonconformance"]
assert j["modal_order"][:5] == ["blocker.0", "blocker.1", "blocker.2", "blocker.3", "blocker.4"]
PY
clean "after device run"

expect 0 "device run --engine io_uring" -- "$B" device run gated-write --repeat 2 --engine io_uring -p fifo_batch=4 -q
grep -q "MATCH" "$T/out" && ok || bad "io_uring: gated-write matches the model"
clean "after device run --engine io_uring"

expect 0 "device run text, synthetic gate" -- "$B" device run stream-write --repeat 1 -q
grep -q "gate added" "$T/out" && grep -q "MATCH" "$T/out" && ok || bad "stream-write: gate note and match"

# A user's workload file (--workload), and a trace made from it that
# carries its text: it runs after the file is gone.
cat >"$T/mine.wl" <<'WL'
# mine: a writer queued with eight readers behind two blockers
device depth=4 slot=1
proc blocker dir=W sync=0 reqs=200,201,202,203,204
gate
proc writer dir=W sync=0 reqs=100
proc reader dir=R sync=0 stream=8 start=0 stride=1 size=1
track writer:0
WL
expect 0 "device run --workload FILE" -- "$B" device run --workload "$T/mine.wl" --repeat 1 -p fifo_batch=4
grep -q "^mine on mq-deadline" "$T/out" && ok || bad "device run names the user's workload"
clean "after device run --workload"
"$B" check deadline -v v6.18 --workload "$T/mine.wl" -p fifo_batch=4 --prop max-wait -q --trace-out "$T/mine.json" >/dev/null
mv "$T/mine.wl" "$T/mine.gone"
expect 0 "device run of a trace that carries its workload" -- "$B" device run "$T/mine.json" --repeat 1
grep -q "^mine on mq-deadline" "$T/out" && ok || bad "the trace's workload runs without its file"
clean "after device run of a carried workload"
expect 2 "device run: source and --workload" -- "$B" device run gated-write --workload gated-write

# The prediction from the kernel's own code (Debian's 6.12 file), against
# the running kernel, and a trace of that code run on the device.
if [ -f /usr/src/linux-source-6.12.tar.xz ]; then
  export BLKMC_CACHE=$T/cache
  expect 0 "device run --kernel debian:6.12" -- "$B" device run gated-write --kernel debian:6.12 -p fifo_batch=4 --repeat 2
  grep -q "variant 6.12" "$T/out" && grep -q "MATCH" "$T/out" && ok || bad "the 6.12 code predicts the running kernel"
  clean "after device run --kernel"
  "$B" check deadline --kernel debian:6.12 --workload gated-write -p fifo_batch=4 --prop max-wait -q \
    --trace-out "$T/k.json" >/dev/null
  expect 0 "device run of a kernel-code trace" -- "$B" device run "$T/k.json" --repeat 1
  grep -q "variant 6.12" "$T/out" && ok || bad "a kernel-code trace runs with its code's prediction"
  clean "after device run of a kernel-code trace"
else
  echo "note: linux-source-6.12 is not installed: device run --kernel is not tried"
fi

# mq-deadline's rows must all match. BFQ's rows are all predicted by the
# hand model (its v6.12 variant, stable and close-cooperator merging
# included) and, with --kernel, by BFQ's code. Which gated process submits
# first can change on a loaded machine (ctest runs tests side by side;
# docs/devices.md), so of the BFQ rows the gated-write ones are required and
# the rest run.
expect 0 "device check mq-deadline" -- "$B" device check --scheduler mq-deadline --repeat 1 -q
[ "$(grep -c ' yes$' "$T/out")" -ge 14 ] && ok || bad "device check rows match"
"$B" device check --scheduler bfq --repeat 1 -q >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" = 5 ] && grep -q 'has no bfq scheduler' "$T/err"; then
  # A kernel built without BFQ: every row listed as skipped, exit 5.
  [ "$(grep -c ' bfq .* skip$' "$T/out")" = 7 ] && ok || bad "device check without bfq: seven rows listed as skipped"
  [ "$(grep -c . "$T/err")" = 1 ] && ok || bad "device check without bfq: one line on stderr"
  expect 5 "device run --scheduler bfq without bfq" -- "$B" device run gated-write --scheduler bfq --repeat 1 -q
  grep -q 'has no bfq scheduler' "$T/err" && ok || bad "device run without bfq says so"
  clean "after the bfq rows were skipped"
  echo "SKIP: the running kernel ($(uname -r)) has no bfq scheduler: BFQ's device rows not run"
else
  [ "$(grep -c '^gated-write  *bfq .* yes$' "$T/out")" = 2 ] && ok || { bad "device check: bfq gated-write hand rows match"; cat "$T/out"; }
  [ "$(grep -c ' bfq ' "$T/out")" = 7 ] && ok || bad "device check lists seven bfq rows"
  grep -q ' skip$' "$T/out" && bad "device check skips a bfq row without --kernel" || ok
  if [ -f /usr/src/linux-source-6.12.tar.xz ]; then
    "$B" device check --scheduler bfq --kernel debian:6.12 --repeat 1 -q >"$T/out" 2>"$T/err"
    [ "$(grep -c '^gated-write  *bfq .*code 6.12.118.* yes$' "$T/out")" = 2 ] && ok ||
      { bad "device check --kernel: bfq gated-write rows match BFQ's code"; cat "$T/out" "$T/err"; }
    [ "$(grep -c ' bfq .*code 6.12' "$T/out")" = 7 ] && ok || bad "device check --kernel: seven bfq rows from the code"
    grep -q ' skip$' "$T/out" && bad "device check --kernel skips a row" || ok
    clean "after device check --kernel"
  fi
  # A wait no run measured is not a wait, and a worst case from an incomplete
  # search is no bound (BFQ's hand model departs from the kernel here).
  "$B" device run seed002-readers-writer --scheduler bfq --repeat 1 >"$T/out" 2>"$T/err"
  grep -q "^  bound: " "$T/out" && ok || bad "device run prints its bound line"
  grep -qE "bound: .*(-1|EXCEEDS the model's worst case -)" "$T/out" && bad "a bound of -1" || ok
  grep -qE "tracked .*-1 in the kernel" "$T/out" && bad "a tracked wait of -1" || ok
  # Gated idle-class requests beyond what BFQ's limit_depth lets in with the
  # device frozen: the run says which process and which limit (exit 3), or,
  # on a kernel that lets them in, runs.
  cat >"$T/limit.wl" <<'WL'
device depth=4 slot=1 spindles=1
proc blocker dir=W sync=0 reqs=200,201,202,203,204
gate
proc writer dir=W sync=0 stream=30 start=100 stride=1
proc idler dir=R sync=0 prio=idle stream=25 start=0 stride=1
WL
  "$B" device run "$T/limit.wl" --scheduler bfq --repeat 1 -q >"$T/out" 2>"$T/err"
  rc=$?
  if [ "$rc" = 3 ]; then
    [ "$(wc -l <"$T/err")" = 1 ] && grep -q "idler [0-9]* of 25.*limit_depth" "$T/err" && ok ||
      bad "a gate BFQ held back: one line naming the process and the limit"
  else
    [ "$rc" = 0 ] && ok || bad "a gate BFQ held back: exit $rc, wanted 3 (or 0)"
  fi
  clean "after the limit_depth gate"
fi
expect 2 "device check --kernel nosuch" -- "$B" device check --scheduler bfq --kernel /nonexistent/tree --repeat 1
[ "$(wc -l <"$T/err")" = 1 ] && ok || bad "device check --kernel nosuch: one line"
expect 2 "device check --scheduler kyber" -- "$B" device check --scheduler kyber
clean "after device check"

# In-flight accounting on a disk with two partitions: every file as the
# inflight model's running-kernel variants say, held and drained.
"$B" device check --model inflight --repeat 1 -q >"$T/out" 2>"$T/err"
[ "$(grep -c '^inflight .* 1/1 *yes$' "$T/out")" = 4 ] && ok || { bad "device check --model inflight: 4 rows conform"; cat "$T/out" "$T/err"; }
grep -q 'first departure' "$T/out" && bad "device check --model inflight: a departure" || ok
"$B" device check --model inflight --repeat 1 --json >"$T/out" 2>"$T/err"
python3 - "$T/out" <<'PY' && ok || bad "device check --model inflight --json content"
import json, sys
rows = json.load(open(sys.argv[1]))
assert [r["workload"] for r in rows] == ["parts", "disk+parts", "parts-queued", "live"], rows
live = rows.pop()
assert live["match"] and live["conforming"] == 1 and live["samples"] > 100, live
for r in rows:
    assert r["model"] == "inflight" and r["match"] and r["conforming"] == r["runs"] == 1, r
    reads = r["reads"][0]
    assert len(reads) == 18 and all(x["equal"] for x in reads), reads
    assert all(x["kernel"] == 0 for x in reads if x["phase"] == "drained"), reads
# the whole-disk stat line counts only I/O issued to the whole disk (7be835694dae)
held = [x for x in rows[0]["reads"][0] if x["phase"] == "held"]
disk = held[0]["file"].split("/")[0]  # loopN/inflight
by_file = {x["file"]: x["kernel"] for x in held}
assert by_file[disk + "/inflight"] == 4 and by_file["diskstats " + disk] == 0, by_file
PY
expect 2 "device check --model nosuch" -- "$B" device check --model nosuch
expect 2 "device check --model and --scheduler" -- "$B" device check --model bfq --scheduler bfq
clean "after device check --model inflight"

expect 0 "device stress" -- "$B" device stress --seconds 0.5 --json
python3 - "$T/out" <<'PY' && ok || bad "device stress --json content"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["ok"] and j["samples"] > 100 and j["ios"] > 0, j
assert 0 <= j["inflight_min"] <= j["inflight_max"] <= 4, j
assert 0 <= j["diskstats_over_outstanding"] <= j["samples"], j
PY
expect 0 "device stress --partitions 2" -- "$B" device stress --partitions 2 --seconds 0.5 --json
python3 - "$T/out" <<'PY' && ok || bad "device stress --partitions 2 --json content"
import json, sys
j = json.load(open(sys.argv[1]))
t = j["targets"]
assert j["ok"] and len(t) == 3 and t[1]["name"] == t[0]["name"] + "p1", j
assert all(0 <= x["inflight_max"] <= 4 and x["diskstats_max"] > 0 for x in t), j
PY
expect 2 "device stress --partitions 9" -- "$B" device stress --partitions 9
clean "after device stress"

# Interrupted mid-run: everything is removed, exit 130. "setup" signals as
# soon as the run's directory exists (the stack is being built); a fixed
# early delay would race with start-up, and a background job of a
# non-interactive shell ignores SIGINT until blkmc installs its handler.
for sig in INT TERM; do
  for delay in setup 0.6; do
    "$B" device run gated-write --repeat 500 -q >/dev/null 2>"$T/err" &
    pid=$!
    if [ "$delay" = setup ]; then
      for _ in $(seq 500); do
        compgen -G "/dev/shm/blkmc-dev-*" >/dev/null && break
        sleep 0.01
      done
    else
      sleep "$delay"
    fi
    kill -s "$sig" "$pid"
    wait "$pid"
    rc=$?
    if [ "$rc" = 130 ]; then ok; else bad "SIG$sig at $delay: exit $rc"; fi
    clean "after SIG$sig at $delay"
  done
done
# The same mid-way through the in-flight rows (partitions open, writes
# held behind the frozen ext4).
for delay in 0.5 1.0; do
  "$B" device check --model inflight --repeat 200 -q >/dev/null 2>"$T/err" &
  pid=$!
  sleep "$delay"
  kill -s INT "$pid"
  wait "$pid"
  rc=$?
  if [ "$rc" = 130 ]; then ok; else bad "inflight rows, SIGINT at $delay: exit $rc"; fi
  clean "after SIGINT in the inflight rows at $delay"
done
# Killed (SIGKILL): no handler runs; `blkmc device cleanup` thaws, detaches,
# unmounts and removes what the dead run left. It runs before `wait`: a
# process killed while the ext4 is frozen cannot exit until it is thawed.
for run in "0.3 run" "0.7 run" "0.8 inflight"; do
  set -- $run
  delay=$1
  if [ "$2" = run ]; then
    "$B" device run gated-write --repeat 500 -q >/dev/null 2>&1 &
  else  # partitions open, writes held
    "$B" device check --model inflight --repeat 200 -q >/dev/null 2>&1 &
  fi
  pid=$!
  sleep "$delay"
  kill -s KILL "$pid"
  sleep 0.2
  expect 0 "device cleanup after SIGKILL of $2 at ${delay}s" -- "$B" device cleanup
  wait "$pid" 2>/dev/null
  clean "after SIGKILL of $2 at ${delay}s and device cleanup"
done
expect 0 "device cleanup with nothing left" -- "$B" device cleanup --dry-run
grep -q "nothing left" "$T/out" && ok || bad "cleanup: nothing left"

[ "$(grep -c ' /sys/kernel/tracing ' /proc/mounts)" = "$tracefs_before" ] && ok ||
  bad "tracefs mounted as before"

finish
