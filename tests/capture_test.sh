#!/usr/bin/env bash
# `blkmc workload import` as users meet it: bad captures are one-line
# errors that write nothing; then, where the machine has root, loop devices,
# tracefs, fio and mkfs.ext4, a small fio job (a sync random reader, an async
# sequential writer) runs on a loop device over a file this test creates
# while a private tracefs instance records the device's block events; the
# capture is imported and the workload checked against the job (processes,
# directions, request counts), searched, simulated, held against the
# kernel's own mq-deadline code (conform) and replayed on a loop device;
# the same capture written as blktrace's binary records, and blkparse's
# text of those, import to the same workload. Without them: the
# device part is skipped (exit 77). Nothing of ours is left behind.
# Usage: capture_test.sh BLKMC SOURCE_DIR
set -u
B=$1
SRC=$2
T=$(mktemp -d)
img="" loop="" inst="" mounted=0
cleanup() {
  [ -n "$inst" ] && [ -d "$inst" ] && { echo 0 >"$inst/tracing_on"; rmdir "$inst"; }
  [ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
  [ -n "$img" ] && rm -f "$img"
  [ "$mounted" = 1 ] && umount /sys/kernel/tracing
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
. "$SRC/tests/check_lib.sh"  # pass, fail, expect
ok() { pass=$((pass + 1)); }
bad() {
  fail=$((fail + 1))
  echo "FAIL: $*"
}
one_line() { [ "$(wc -l <"$T/err")" = 1 ] && grep -q "$1" "$T/err" && ok || bad "one line saying '$1'"; }
finish() {
  echo "capture_test: $pass passed, $fail failed${1:+; $1}"
  [ "$fail" = 0 ] || exit 1
  [ -z "${1:-}" ] || exit 77
  exit 0
}

# --- no device needed: bad input writes nothing ---
printf 'hello\nworld\n' >"$T/notes.txt"
expect 2 "a text that is not a capture" -- "$B" workload import "$T/notes.txt" -o "$T/x.wl"
one_line "notes.txt: not a blktrace capture"
[ ! -e "$T/x.wl" ] && ok || bad "a failed import wrote its output"
printf '\x07\x74\x61\x65\0\0\0\0\1\2\3' >"$T/cut.blktrace.0"
expect 2 "a truncated blktrace file" -- "$B" workload import "$T/cut" -o "$T/x.wl"
one_line "cut.blktrace.0: record 1 at byte 0 is truncated"
[ ! -e "$T/x.wl" ] && ok || bad "a failed import wrote its output"
cat >"$T/two.txt" <<'TXT'
 fio-10 [000] ..... 1.000000: block_rq_insert: 7,1 R 4096 () 8 + 8 [fio]
 fio-11 [000] ..... 1.000001: block_rq_insert: 8,0 W 4096 () 16 + 8 [fio]
TXT
expect 2 "a capture of two devices" -- "$B" workload import "$T/two.txt"
one_line "several devices (7,1, 8,0); pick one with --device"
expect 0 "--device picks one" -- "$B" workload import "$T/two.txt" --device 8,0
grep -q "^proc fio dir=W" "$T/out" && ok || bad "--device 8,0 keeps the write"
expect 2 "--device that is not MAJOR,MINOR" -- "$B" workload import "$T/two.txt" --device sda
expect 2 "a missing capture" -- "$B" workload import "$T/none.txt"
one_line "none.txt: no such file"
expect 2 "a directory" -- "$B" workload import "$T"
expect 2 "--max-requests 0" -- "$B" workload import "$T/two.txt" --device 7,1 --max-requests 0
expect 2 "a bad --window" -- "$B" workload import "$T/two.txt" --device 7,1 --window 3..1

# --- real devices ---
why=""
[ "$(id -u)" = 0 ] || why="not root"
[ -z "$why" ] && [ ! -e /dev/loop-control ] && why="no /dev/loop-control"
[ -z "$why" ] && [ ! -d /sys/kernel/tracing ] && why="no /sys/kernel/tracing"
[ -z "$why" ] && ! command -v fio >/dev/null && why="no fio"
[ -z "$why" ] && ! command -v mkfs.ext4 >/dev/null && why="no mkfs.ext4 (device run)"
if [ -n "$why" ]; then
  echo "SKIP: recording a capture needs root, loop devices, tracefs, fio and mkfs.ext4 ($why)"
  finish "capture on a device skipped: $why"
fi

# A loop device over a file of ours, its block events in a private instance.
img=/dev/shm/blkmc-capture-$$.img
truncate -s 64M "$img"
loop=$(losetup -f --show "$img") || { loop=""; bad "losetup"; finish; }
dev=$(cat "/sys/block/${loop#/dev/}/dev")
major=${dev%:*} minor=${dev#*:}
if ! grep -q ' /sys/kernel/tracing tracefs ' /proc/mounts; then
  mount -t tracefs nodev /sys/kernel/tracing && mounted=1
fi
inst=/sys/kernel/tracing/instances/blkmc-capture-$$
mkdir "$inst" || { inst=""; bad "tracefs instance"; finish; }
for ev in block_bio_queue block_rq_insert block_rq_issue block_rq_complete block_rq_requeue; do
  echo "dev == $(((major << 20) | minor))" >"$inst/events/block/$ev/filter"
  echo 1 >"$inst/events/block/$ev/enable"
done
echo 1 >"$inst/tracing_on"
fio --name=reader --filename="$loop" --rw=randread --bs=4k --size=16M --number_ios=8 --ioengine=psync \
    --direct=1 --randseed=7 \
    --name=writer --filename="$loop" --rw=write --bs=4k --offset=32M --size=16M --number_ios=8 \
    --ioengine=libaio --iodepth=4 --iodepth_batch_submit=4 --direct=1 >"$T/fio.out" 2>&1 && ok || bad "fio: $(tail -3 "$T/fio.out")"
echo 0 >"$inst/tracing_on"
cat "$inst/trace" >"$T/cap.txt"
rmdir "$inst" && inst=""
losetup -d "$loop" && loop=""
rm -f "$img" && img=""
[ "$mounted" = 1 ] && umount /sys/kernel/tracing && mounted=0

# The fio job's processes, directions and request counts.
expect 0 "import the capture" -- "$B" workload import "$T/cap.txt" --procs fio -o "$T/job.wl"
grep -q "16 requests; kept 16 requests of 2 of 2 processes" "$T/err" && ok || bad "16 requests of 2 processes: $(cat "$T/err")"
reqs() { grep "^proc fio_[0-9]* dir=$1 " "$T/job.wl" | sed 's/.*reqs=//' | tr ',' '\n' | wc -l; }
[ "$(grep -c '^proc ' "$T/job.wl")" = 2 ] && ok || bad "two processes"
[ "$(reqs R)" = 8 ] && [ "$(reqs W)" = 8 ] && ok || bad "8 reads and 8 writes: $(grep '^proc' "$T/job.wl")"
grep -q "^proc fio_[0-9]* dir=R sync=1" "$T/job.wl" && ok || bad "the psync reader waits for each read"
grep -q "^proc fio_[0-9]* dir=W sync=0" "$T/job.wl" && ok || bad "the libaio writer does not wait"
grep -q "^device depth=[1-5] " "$T/job.wl" && ok || bad "at most iodepth 4 + 1 in flight: $(grep '^device' "$T/job.wl")"

# Simulated, searched, replayed on a loop device.
expect 0 "simulate the imported workload" -- "$B" simulate deadline -v v6.18 --workload "$T/job.wl" -p clock=1 \
  --ticks 2000 --report "$T/sim.html"
[ "$(grep -c '^    captured ' "$T/out")" = 2 ] && ok || bad "simulate prints the capture's latencies of both processes"
grep -q 'captured (8)' "$T/sim.html" && grep -q 'stroke-dasharray' "$T/sim.html" && ok \
  || bad "the simulate page draws the capture's latencies"
[ "$(awk '/^  fio_[0-9]+ / && $2 == 8 && $3 == 8' "$T/out" | wc -l)" = 2 ] && ok \
  || bad "simulate submits and completes the 8 requests of each process"
expect 0 "import a smaller window" -- "$B" workload import "$T/cap.txt" --procs fio --max-requests 8 -o "$T/small.wl"
expect 0 "check the imported workload" -- "$B" check deadline -v v6.18 --workload "$T/small.wl" --prop max-wait -q \
  --report "$T/worst.html"
grep -q "bfs search: complete" "$T/out" && ok || bad "the search finishes"
grep -q "Your capture" "$T/worst.html" && ok || bad "the page sets the worst schedule beside the capture"
if [ -f /usr/src/linux-source-6.12.tar.xz ]; then
  expect 0 "conform: the model and 6.12's mq-deadline.c on the imported workload" -- env BLKMC_CACHE="$T/cache" \
    "$B" conform deadline -v v6.18 --kernel debian:6.12 --workload "$T/small.wl" -q
  grep -q "conforms *holds" "$T/out" && ok || bad "the model conforms with the kernel's code"
else
  echo "SKIP: linux-source-6.12 is not installed: conform not run on the imported workload"
fi
expect 0 "device run of the imported workload" -- "$B" device run "$T/job.wl" --repeat 2 -q
grep -q "conformance: 2/2 runs conform" "$T/out" && grep -q MATCH "$T/out" && ok || bad "the kernel conforms to the model"

# The same capture as blktrace's binary records, and blkparse's text of them.
python3 "$SRC/tests/tracefs_to_blktrace.py" "$T/cap.txt" "$T/bin" && ok || bad "binary capture"
body() { grep -v '^#' "$1"; }
expect 0 "import the binary capture" -- "$B" workload import "$T/bin" --procs fio -o "$T/bin.wl"
grep -q "(blktrace)" "$T/err" && ok || bad "read as blktrace's binary records"
[ "$(body "$T/bin.wl")" = "$(body "$T/job.wl")" ] && ok || bad "binary and tracefs text differ"
if command -v blkparse >/dev/null; then
  blkparse -i "$T/bin" -o "$T/bp.txt" >/dev/null 2>&1 && ok || bad "blkparse reads the binary capture"
  expect 0 "import blkparse's text" -- "$B" workload import "$T/bp.txt" --procs fio -o "$T/bp.wl"
  grep -q "(blkparse)" "$T/err" && ok || bad "read as blkparse text"
  [ "$(body "$T/bp.wl")" = "$(body "$T/job.wl")" ] && ok || bad "blkparse's text and tracefs text differ"
else
  echo "SKIP: blkparse is not installed (Debian blktrace): the binary capture is not cross-checked"
fi

# Nothing of ours left.
left=$({ losetup -a | grep blkmc-capture; ls /sys/kernel/tracing/instances 2>/dev/null | grep blkmc-capture; ls /dev/shm | grep blkmc-capture; } 2>/dev/null)
[ -z "$left" ] && ok || bad "left behind: $left"
finish
