#!/usr/bin/env bash
# BFQ's own code, end to end: Debian's linux-source-6.12 and -6.1 (block/bfq-iosched.c,
# bfq-iosched.h, bfq-wf2q.c, bfq-cgroup.c and the top Makefile unpacked
# here) compiled against blkmc's shim, checked, simulated and replayed, with
# its tunables through its own sysfs store functions, its idle-slice timer,
# one task and io_context per process, and test patches written here
# (tests/kernel/bfq-*.patch) applied to a copy.
# Usage: kernel_bfq_test.sh BLKMC SOURCE_DIR. Exit 77 (skipped) without
# the package (apt-get install linux-source-6.12).
set -u
B=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export BLKMC_CACHE=$T/cache  # compiled objects of this run only
. "$SRC/tests/check_lib.sh"

tar=/usr/src/linux-source-6.12.tar.xz
if [ ! -f "$tar" ]; then
  echo "skipped: Debian's linux-source-6.12 is not installed (apt-get install linux-source-6.12)"
  exit 77
fi
K=$T/linux-6.12
mkdir -p "$K"
tar -xf "$tar" -C "$K" --strip-components=1 --wildcards "linux-source-6.12/Makefile" "linux-source-6.12/block/bfq*" ||
  { echo "FAIL: unpacking $tar"; exit 1; }

patched() {  # patched NAME -> a copy of the tree with tests/kernel/NAME.patch applied
  rm -rf "$T/$1"
  mkdir -p "$T/$1"
  cp -r "$K/Makefile" "$K/block" "$T/$1/"
  (cd "$T/$1" && patch -s -p1 <"$SRC/tests/kernel/$1.patch") >&2 || echo "FAIL: $1.patch does not apply" >&2
  echo "$T/$1"
}

# --- the code, checked as blkmc's model is -------------------------------
expect 0 "idle class: every property" -- "$B" check bfq --kernel "$K" --workload bfq-idle-class --bfs
for p in conservation deadlock progress starvation kernel-bug kernel-in-model; do
  contains "$T/out" "^  $p .* holds" "bfq-idle-class: $p holds"
done
contains "$T/out" "bfq --variant 6.12" "the variant names the source's version"
contains "$T/out" "slice_idle=8" "the kernel's default tunables"

expect 0 "two flash readers: max-wait" -- "$B" check bfq --kernel "$K" --workload bfq-flash-readers --prop max-wait \
  --bfs --trace-out "$T/mw.json"
contains "$T/out" "max-wait               max = 3" "the code's worst wait on bfq-flash-readers"
cp "$T/out" "$T/mw1"
expect 0 "the same on one thread" -- "$B" check bfq --kernel "$K" --workload bfq-flash-readers --prop max-wait \
  --bfs --threads 1
verdict() { grep -E "^  max-wait |^  [0-9]+ states" "$1" | sed 's/ max depth \([0-9]*\),.*/ \1/'; }
[ -n "$(verdict "$T/out")" ] && [ "$(verdict "$T/mw1")" = "$(verdict "$T/out")" ] && pass=$((pass + 1)) ||
  { fail=$((fail + 1)); echo "FAIL: 1 and 2 threads: not the same maximum, states and depth"; }
expect 0 "the same with raw states" -- "$B" check bfq --kernel "$K" --workload bfq-flash-readers --prop max-wait \
  --bfs -p kernel_state=raw
contains "$T/out" "max-wait               max = 3" "raw states: the same maximum"
expect 0 "the trace replays" -- "$B" replay "$T/mw.json"
contains "$T/out" "reproduced: max-wait reaches its maximum 3" "the replay reproduces the maximum"
contains "$T/out" "bfq-iosched.c" "the story names the file"
# The two readers' queues are merged (stable merging, 5.13+): the state's
# line shows the shared queue the code made.
contains "$T/out" "shared\[" "the readers' queues are merged into a shared queue"

# Tunables go through the file's own store functions: slice_idle=0 never
# idles, and the space changes.
expect 0 "slice_idle=0" -- "$B" check bfq --kernel "$K" --workload bfq-flash-readers --prop deadlock --bfs \
  -p slice_idle=0
contains "$T/out" "deadlock               holds" "slice_idle=0: deadlock holds"
a=$(grep -o '^  [0-9]* states' "$T/mw1") b=$(grep -o '^  [0-9]* states' "$T/out")
[ -n "$a" ] && [ "$a" != "$b" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: slice_idle=0 changes nothing ($a, $b)"; }
expect 2 "a tunable out of range" -- "$B" check bfq --kernel "$K" --workload bfq-flash-readers -p slice_idle=-1 -q

# The clock: the idle-slice timer fires at its expiry.
expect 0 "simulate with the clock" -- "$B" simulate bfq --kernel "$K" --workload bfq-flash-readers -p clock=1 \
  --seed 7
cp "$T/out" "$T/sim1"
expect 0 "simulate again" -- "$B" simulate bfq --kernel "$K" --workload bfq-flash-readers -p clock=1 \
  --seed 7
same "$T/sim1" "$T/out" "simulate: same seed, same figures"

# A space too large to finish says how far it got.
expect 3 "a large space under a time limit" -- "$B" check bfq --kernel "$K" --workload bfq-reader-writer \
  --prop deadlock --time 3
contains "$T/out" "incomplete" "the run says it is incomplete"
contains "$T/out" "max depth" "with states and depth"

# --- patches: verdicts of the changed code --------------------------------
W=$(patched bfq-warn-shared)
expect 1 "a WARN in the shared queue" -- "$B" check bfq --kernel "$W" --workload bfq-flash-readers \
  --prop kernel-bug --bfs --trace-out "$T/warn.json"
contains "$T/out" "kernel-bug .* violated" "the WARN is a kernel-bug verdict"
expect 0 "the WARN's trace replays" -- "$B" replay "$T/warn.json"
contains "$T/out" "KERNEL BUG" "the story says where the code stopped"
contains "$T/out" "WARN_ON(bfqq->pid == -1)" "the story names the WARN"

N=$(patched bfq-no-merge)
expect 0 "never merging" -- "$B" check bfq --kernel "$N" --workload bfq-flash-readers --prop max-wait --bfs \
  --trace-out "$T/nm.json"
expect 0 "its trace replays" -- "$B" replay "$T/nm.json"
lacks "$T/out" "shared\[" "no shared queue without merging"

# The patch against the code before it: the same verdicts, and the first
# dispatch that differs (the unpatched code serves the shared queue).
expect 0 "compare the no-merge patch" -- "$B" compare bfq --kernel "$K" --after-kernel "$N" \
  --workload bfq-flash-readers --trace-out "$T/cmp"
contains "$T/out" "0 verdict(s) changed" "no verdict changes on bfq-flash-readers"
contains "$T/out" "first divergence after 2 steps" "the first divergence: the merged queue"
expect 0 "replay the divergence" -- "$B" replay "$T/cmp-divergence.json"

# --- conform: blkmc's BFQ model against the code ---------------------------
# Three departures, each a shortest trace (docs/models/bfq.md): stable
# merging, wf2q's order among equal finish times, idling for a queue the
# model expires.
for case in "bfq-flash-readers:4:the kernel's code dispatches r2.0; blkmc's model cannot" \
  "bfq-seeky-ncq:3:the kernel's code dispatches seq.0; blkmc's model dispatches rnd.0" \
  "bfq-idle-class:5:the kernel's code makes a dispatch that returns NULL; blkmc's model dispatches idler.0"; do
  w=${case%%:*} rest=${case#*:}
  n=${rest%%:*} what=${rest#*:}
  expect 1 "conform $w" -- "$B" conform bfq -v better-to-idle --kernel "$K" --workload "$w" -q \
    --trace-out "$T/cf-$w.json"
  contains "$T/out" "conforms               violated  ($n steps)" "$w: the departure's shortest trace"
  expect 0 "$w: the departure replays" -- "$B" replay "$T/cf-$w.json"
  contains "$T/out" "DEPARTURE: $what" "$w: the departure says what differs"
done

# The v6.12 variant conforms where better-to-idle departs, on every
# interleaving (gated-write: queues stably merged), and its worst wait on
# the flash readers is the code's.
for w in bfq-flash-readers bfq-seeky-ncq bfq-idle-class gated-write; do
  expect 0 "conform v6.12 $w" -- "$B" conform bfq -v v6.12 --kernel "$K" --workload "$w" -q
  contains "$T/out" "conforms               holds" "v6.12 conforms on $w"
done
expect 0 "v6.12: the flash readers' worst wait" -- "$B" check bfq -v v6.12 --workload bfq-flash-readers --prop max-wait -q
contains "$T/out" "max-wait               max = 3" "v6.12: the code's worst wait (3)"

# --- 6.1's BFQ (where linux-source-6.1 is installed) -----------------------
tar1=/usr/src/linux-source-6.1.tar.xz
if [ -f "$tar1" ]; then
  K1=$T/linux-6.1
  mkdir -p "$K1"
  tar -xf "$tar1" -C "$K1" --strip-components=1 --wildcards "linux-source-6.1/Makefile" "linux-source-6.1/block/bfq*"
  expect 0 "6.1: two flash readers" -- "$B" check bfq --kernel "$K1" --workload bfq-flash-readers --bfs -q
  contains "$T/out" "bfq --variant 6.1" "6.1: the variant names its version"
  contains "$T/out" "max-wait               max = 3" "6.1: the same worst wait"
  contains "$T/out" "kernel-bug             holds" "6.1: no BUG or WARN"
else
  echo "note: linux-source-6.1 is not installed: 6.1's BFQ is skipped"
fi

# --- bad input -----------------------------------------------------------
mkdir -p "$T/empty"
expect 2 "a tree without BFQ's files" -- "$B" check bfq --kernel "$T/empty" -q

echo "kernel_bfq_test: $pass passed, $fail failed"
[ "$fail" = 0 ]
