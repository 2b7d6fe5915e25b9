#!/usr/bin/env bash
# The kernel's own scheduler code, end to end: Debian's linux-source-6.12
# and -6.1 packages (block/ and the top Makefile unpacked once here), the
# code checked, replayed, simulated, held against blkmc's model and
# compared with a patch written here (tests/kernel/*.patch, applied with
# patch to a copy); the patches that break the code give kernel-bug
# verdicts, never a crash; bad input gives one-line errors.
# Usage: kernel_test.sh BLKMC SOURCE_DIR. Exit 77 (skipped) without the
# packages (apt-get install linux-source-6.12 linux-source-6.1).
set -u
B=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export BLKMC_CACHE=$T/cache  # compiled objects of this run only
. "$SRC/tests/check_lib.sh"

# block/ and the Makefile of each package, unpacked once.
unpack() {  # unpack VERSION -> $T/linux-VERSION
  local tar=/usr/src/linux-source-$1.tar.xz
  [ -f "$tar" ] || return 1
  mkdir -p "$T/linux-$1"
  tar -xf "$tar" -C "$T/linux-$1" --strip-components=1 --wildcards "linux-source-$1/Makefile" \
    "linux-source-$1/block/*" || return 1
}
if ! unpack 6.12; then
  echo "skipped: Debian's linux-source-6.12 is not installed (apt-get install linux-source-6.12)"
  exit 77
fi
K12=$T/linux-6.12
K1=
if unpack 6.1; then K1=$T/linux-6.1; else echo "note: linux-source-6.1 is not installed: its checks are skipped"; fi

# A copy of the 6.12 tree with one of the test patches applied.
patched() {  # patched NAME -> a tree under $T/NAME
  rm -rf "$T/$1"
  mkdir -p "$T/$1"
  cp -r "$K12/Makefile" "$K12/block" "$T/$1/"
  (cd "$T/$1" && patch -s -p1 <"$SRC/tests/kernel/$1.patch") >&2 || echo "FAIL: $1.patch does not apply" >&2
  echo "$T/$1"
}

# --- the code, checked as blkmc's model is -------------------------------
expect 0 "6.12 gated-write" -- "$B" check deadline --kernel "$K12" --workload gated-write --prop max-wait --bfs -q \
  --trace-out "$T/mw.json"
contains "$T/out" "max-wait               max = 32" "6.12: the write waits fifo_batch x writes_starved"
contains "$T/out" "6.12.117\|6.12." "the variant names the source's version"
expect 0 "6.12 every property" -- "$B" check deadline --kernel "$K12" --workload gated-write -p fifo_batch=4 --bfs -q
contains "$T/out" "max-wait               max = 8" "6.12 fifo_batch=4: 8"
contains "$T/out" "kernel-bug             holds" "kernel-bug holds"
contains "$T/out" "617 states" "6.12 has the model's 617 states"
expect 0 "replay from the cache" -- "$B" replay "$T/mw.json"
contains "$T/out" "reproduced: max-wait reaches its maximum 32" "replay of a kernel trace"
contains "$T/out" "dispatch_request" "the story names the elevator op"
expect 0 "report of a kernel trace" -- "$B" report "$T/mw.json" -o "$T/mw.html"
expect 0 "check --from-trace" -- "$B" check --from-trace "$T/mw.json" -q
python3 - "$T/mw.json" <<'PY' && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: the trace names its source"; }
import json, sys
t = json.load(open(sys.argv[1]))
s = t["source"]
assert s["kind"] == "kernel" and s["file"] == "block/mq-deadline.c" and len(s["sha256"]) == 64, s
assert t["variant"] == s["name"] and s["name"].startswith(s["version"] + "@"), t["variant"]
PY
expect 0 "simulate the code" -- "$B" simulate deadline --kernel "$K12" --workload seed002-readers-writer --seed 3
contains "$T/out" "writer" "simulate reports per process"
expect 0 "a lone file (--source)" -- "$B" check deadline --source "$K12/block/mq-deadline.c" --workload gated-write \
  --prop max-wait -q
contains "$T/out" "6.5-6.12@" "a lone file's version read off its interfaces"
expect 0 "the package itself (debian:6.12)" -- "$B" check deadline --kernel debian:6.12 --workload gated-write --prop max-wait -q
contains "$T/out" "max = 32" "debian:6.12"

# Same verdicts on any number of threads, and with keys as with raw bytes.
for w in gated-write-idle seed002-readers-writer requeue-idle bypass-flush-idle passthrough-head; do
  "$B" check deadline --kernel "$K12" --workload "$w" --bfs -q --threads 1 >"$T/t1" 2>&1
  "$B" check deadline --kernel "$K12" --workload "$w" --bfs -q --threads 2 >"$T/t2" 2>&1
  same "$T/t1" "$T/t2" "$w: 1 and 2 threads"
done
for w in "gated-write" "seed002-expiry -p clock=1 -p read_expire=4" "requeue-idle -p clock=1 -p prio_aging_expire=5" \
  "fair-sync-reader -p clock=1" "passthrough-head"; do
  # shellcheck disable=SC2086
  "$B" check deadline --kernel "$K12" --workload $w --bfs -q --json >"$T/key.json" 2>/dev/null
  # shellcheck disable=SC2086
  "$B" check deadline --kernel "$K12" --workload $w -p kernel_state=raw --bfs -q --json >"$T/raw.json" 2>/dev/null
  python3 - "$T/key.json" "$T/raw.json" <<'PY' && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: $w: key and raw differ"; }
import json, sys
k, r = (json.load(open(f)) for f in sys.argv[1:3])
pick = lambda j: [(p["property"], p["verdict"], p.get("value")) for p in j["properties"]]
assert pick(k) == pick(r), (pick(k), pick(r))
assert k["stats"]["states"] <= r["stats"]["states"], (k["stats"], r["stats"])
PY
done

# --- conform: blkmc's model against the code ---------------------------
expect 0 "v6.18 conforms with 6.12" -- "$B" conform deadline -v v6.18 --kernel "$K12" --workload gated-write-idle -q
contains "$T/out" "conforms               holds" "conform holds"
expect 1 "prio-5.16 departs from 6.12" -- "$B" conform deadline -v prio-5.16 --kernel "$K12" --workload passthrough-head -q \
  --trace-out "$T/dep.json" --report "$T/dep.html"
contains "$T/out" "first departure after 1 steps" "the first departure"
contains "$T/out" "dispatches scsi.0" "the departure names the request"
[ -s "$T/dep.html" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: conform --report"; }
expect 0 "replay a departure" -- "$B" replay "$T/dep.json"
contains "$T/out" "reproduced: conforms is violated" "the departure replays"
if [ -n "$K1" ]; then
  expect 0 "v6.1 conforms with 6.1" -- "$B" conform deadline -v v6.1 --kernel "$K1" --workload requeue-idle -q
  expect 2 "a trace refuses other code" -- "$B" replay "$T/mw.json" --kernel "$K1"
  contains "$T/err" "not on this code" "replay on other code is refused"
  one_line_error "replay on other code"
fi

# --- a patch, end to end -------------------------------------------------
HR=$(patched head-request)
expect 0 "compare a patch" -- "$B" compare deadline --kernel "$K12" --after-kernel "$HR" --workload seed002-expiry \
  -p clock=1 -p read_expire=4 --trace-out "$T/cmp"
"$B" compare deadline --before v6.18 --after head-request --workload seed002-expiry -p clock=1 -p read_expire=4 >"$T/hand"
for p in max-wait max-wait-ticks max-expired-wait; do
  want=$(grep -E "^  $p " "$T/hand" | grep -o 'CHANGED (.*)')
  got=$(grep -E "^  $p " "$T/out" | grep -o 'CHANGED ([^)]*)')
  [ -n "$want" ] && [ "$want" = "$got" ] && pass=$((pass + 1)) ||
    { fail=$((fail + 1)); echo "FAIL: $p: the patch changes '$got', blkmc's head-request '$want'"; }
done
contains "$T/out" "first divergence after 14 steps" "compare finds the first divergence"
[ -f "$T/cmp-divergence.json" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: the divergence trace"; }
expect 0 "replay a divergence" -- "$B" replay "$T/cmp-divergence.json"
expect 0 "the patched code conforms with head-request" -- "$B" conform deadline -v head-request --kernel "$HR" \
  --workload seed002-expiry -p clock=1 -p read_expire=4 -q
contains "$T/out" "conforms               holds" "head-request = the patch"

# --- broken code: verdicts, not crashes ---------------------------------
for case in "bug-on-write:BUG_ON(data_dir == DD_WRITE)" "warn-finish:WARN_ON_ONCE(per_prio)" \
  "null-deref:fault" "endless-loop:did not return" "overflow:a write past the end of a kmalloc'd object" \
  "global-write:its global 'dd_dispatches'" "rq-field-write:keeps constant" \
  "use-after-free:use-after-free: read of size 2 at offset 140 of the free request slot" \
  "overflow-read:out-of-bounds: read of size 1 at offset 307 of a kmalloc.d object"; do
  name=${case%%:*} what=${case#*:}
  P=$(patched "$name")
  prop=kernel-bug
  case $name in global-write | rq-field-write) prop=kernel-in-model ;; esac
  expect 1 "$name: a verdict" -- "$B" check deadline --kernel "$P" --workload gated-write --prop "$prop" --bfs -q \
    --trace-out "$T/$name.json"
  contains "$T/out" "$prop .* violated" "$name: $prop violated"
  expect 0 "$name: the trace replays" -- "$B" replay "$T/$name.json"
  contains "$T/out" "KERNEL BUG" "$name: the story says where the code stopped"
  contains "$T/out" "$what" "$name: the story names it"
done
# A memory error names the user's line, as KASAN does (the access is seen
# by the compiler's instrumentation before it happens).
contains "$T/out" "at mq-deadline.c:4[0-9][0-9] (dd_dispatch_request)" "overflow-read: the line of the access"
"$B" replay "$T/use-after-free.json" >"$T/out" 2>&1
contains "$T/out" "at mq-deadline.c:4[0-9][0-9] (dd_dispatch_request)" "use-after-free: the line of the access"
contains "$T/out" "request slot [0-9] (" "use-after-free: the request is named"

# --- bad input: one-line errors -------------------------------------------
mkdir -p "$T/empty"
expect 2 "a tree without the file" -- "$B" check deadline --kernel "$T/empty" -q
one_line_error "a tree without the file"
MS=$(patched missing-symbol)
expect 2 "a file that does not compile" -- "$B" check deadline --kernel "$MS" -q
one_line_error "a file that does not compile"
contains "$T/err" "no 'blk_mq_freeze_queue'" "the error names the symbol the shim lacks"
contains "$T/err" "mq-deadline.c:" "the error names the file and line"
if [ "$(uname -m)" = x86_64 ]; then  # the patch is x86 assembly
  IA=$(patched inline-atomic)
  expect 2 "an atomic instruction the instrumentation cannot see" -- "$B" check deadline --kernel "$IA" -q
  one_line_error "inline atomic"
  contains "$T/err" "an atomic instruction in dd_dispatch_request that blkmc cannot see" "the refusal names the function"
fi
OLD=$(patched head-request)
sed -i 's/^PATCHLEVEL = .*/PATCHLEVEL = 13/' "$OLD/Makefile"
expect 2 "a version outside the shim's range" -- "$B" check deadline --kernel "$OLD" -q
one_line_error "a version outside the range"
contains "$T/err" "outside the range" "the error says the range"
expect 2 "kernel code for a model without a harness" -- "$B" check tags --kernel "$K12" -q
one_line_error "tags --kernel"
expect 2 "--variant with --kernel" -- "$B" check deadline -v v6.18 --kernel "$K12" -q
one_line_error "-v and --kernel"
expect 2 "no such package" -- "$B" check deadline --kernel debian:9.9 -q
one_line_error "debian:9.9"

echo "kernel_test: $pass passed, $fail failed"
[ "$fail" = 0 ]
