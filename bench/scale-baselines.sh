#!/usr/bin/env bash
# scale-baselines.sh -- multi-core baselines for blkmc's "tags" model: SPIN
# (pan -DNCORE) on bench/tags.pml and rumur (threads) on bench/tags.m, the
# same transition system as `blkmc check tags --no-reduce`, so their state
# counts agree and their times can be set against blkmc's.
#
# usage: bench/scale-baselines.sh [NTAGS [SUBMITTERS [ROUNDS]]]   (default 4 3 3)
# environment:
#   THREADS     cores/threads for both tools (default 2)
#   POOL        pool objects (default 0)
#   VARIANT     V4_11 | NULL_CHECK | REFCOUNT | TAG_MATCH (default REFCOUNT)
#   PAN_MEMLIM  pan's -DMEMLIM in MB (default 3/4 of MemAvailable)
# output (stdout), one line per tool:  TOOL STATES SECONDS VERDICT
#   VERDICT is holds / violated for fn-sees-owner, or incomplete.
#   SECONDS: pan's own "elapsed time" (search only; wall time below 0.1 s,
#   where its 10 ms clock is noise); rumur prints whole seconds only, so its
#   figure is the wall time of the verifier run. Builds are not timed.
# exit status: 0 when both searches completed, 1 when one did not, 2 on
# usage or setup errors.
set -euo pipefail

die() { echo "scale-baselines: $*" >&2; exit 2; }

ntags=${1:-4} subs=${2:-3} rounds=${3:-3}
THREADS=${THREADS:-2} POOL=${POOL:-0} VARIANT=${VARIANT:-REFCOUNT}
for v in "$ntags" "$subs" "$rounds" "$THREADS" "$POOL"; do
  [[ $v =~ ^[0-9]+$ ]] || die "not a number: '$v' (usage: $0 [NTAGS [SUBMITTERS [ROUNDS]]])"
done
# blkmc's parameter ranges (the models' byte-sized variables assume them)
((ntags >= 1 && ntags <= 16 && subs >= 1 && subs <= 8 && rounds >= 1 && rounds <= 15 &&
  POOL <= 8 && THREADS >= 1)) || die "out of range: ntags 1..16, submitters 1..8, rounds 1..15, pool 0..8"
case $VARIANT in V4_11 | NULL_CHECK | REFCOUNT | TAG_MATCH) ;; *) die "unknown VARIANT '$VARIANT'" ;; esac

for tool in spin rumur gcc cc; do
  command -v "$tool" >/dev/null || die "$tool not found (Debian: apt-get install $tool)"
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ -f "$here/tags.pml" ] && [ -f "$here/tags.m" ] || die "tags.pml or tags.m missing in $here"

if [ -z "${PAN_MEMLIM:-}" ]; then
  # pan -DNCORE falls back to 2048 MB without MEMLIM, too little for 4/3/3
  PAN_MEMLIM=$(awk '/^MemAvailable:/{print int($2 / 1024 * 3 / 4)}' /proc/meminfo)
  [ -n "$PAN_MEMLIM" ] || PAN_MEMLIM=4096
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/scale-baselines.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
fail=0

# ---- SPIN, pan -DNCORE ------------------------------------------------------
mkdir "$tmp/spin" && cd "$tmp/spin"
echo "== spin: NCORE=$THREADS $ntags/$subs/$rounds/$POOL $VARIANT" >&2
# -o2 keeps the write-only iterator count in the state vector: without it
# SPIN explores a smaller (sliced) space than rumur and blkmc --no-reduce.
spin -a -o2 -DNTAGS="$ntags" -DSUBMITTERS="$subs" -DROUNDS="$rounds" -DPOOL="$POOL" \
  -DVARIANT="$VARIANT" -DFN_SEES_OWNER "$here/tags.pml" >spin.log 2>&1 ||
  { cat spin.log >&2; die "spin -a failed"; }
# pan refuses hidden variables with NCORE > 1 (#error), since a hidden value
# is not handed to the worker that expands the next state. tags.pml's hidden
# variables are scratch that every d_step writes before it reads, so nothing
# needs handing over: drop the guard rather than grow the state vector.
sed -i '/^#define HAS_HIDDEN/d' pan.h
# -DSAFETY: no cycle detection (only safety properties here).
gcc -O2 -DNCORE="$THREADS" -DSAFETY -DMEMLIM="$PAN_MEMLIM" -o pan pan.c >gcc.log 2>&1 ||
  { cat gcc.log >&2; die "gcc failed on pan.c"; }
t0=$(now)
# -E: no invalid-end-state (deadlock) check, as blkmc --prop fn-sees-owner
./pan -E >pan.out 2>&1 || true
t1=$(now)
states=$(awk '/states, stored/{print $1; exit}' pan.out)
secs=$(awk '/elapsed time/{for (i = 1; i < NF; i++) if ($i == "time") {print $(i + 1); exit}}' pan.out)
secs=$(awk -v s="${secs:-0}" -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", (s < 0.1) ? b - a : s}')
errs=$(awk '/errors:/{print $NF; exit}' pan.out)
if grep -q "assertion violated" pan.out; then verdict=violated
elif [ "$errs" = 0 ] && ! grep -q "Search not completed\|out of memory" pan.out; then verdict=holds
else verdict=incomplete; fail=1; grep -E "^(pan|cpu)" pan.out >&2 || true
fi
echo "spin ${states:-?} $secs $verdict"

# ---- rumur, threads ---------------------------------------------------------
mkdir "$tmp/rumur" && cd "$tmp/rumur"
echo "== rumur: $THREADS threads $ntags/$subs/$rounds/$POOL $VARIANT" >&2
# rumur has no --define: rewrite the constants between tags.m's PARAMS markers
# (count-owner-only off: pan checks fn-sees-owner only).
sed -e "/PARAMS begin/,/PARAMS end/{
  s/^  NTAGS: .*/  NTAGS: $ntags;/; s/^  SUBMITTERS: .*/  SUBMITTERS: $subs;/
  s/^  ROUNDS: .*/  ROUNDS: $rounds;/; s/^  POOL: .*/  POOL: $POOL;/
  s/^  VARIANT: .*/  VARIANT: $VARIANT;/
  s/^  CHECK_FN_SEES_OWNER: .*/  CHECK_FN_SEES_OWNER: 1;/
  s/^  CHECK_COUNT_OWNER_ONLY: .*/  CHECK_COUNT_OWNER_ONLY: 0;/
}" "$here/tags.m" >tags.m
grep -q "^  NTAGS: $ntags;" tags.m && grep -q "^  VARIANT: $VARIANT;" tags.m ||
  die "tags.m's PARAMS block has an unexpected shape"
# threads are chosen when the verifier is generated; deadlock off = pan -E
rumur -q --threads "$THREADS" --deadlock-detection off tags.m -o tags.c >rumur.log 2>&1 ||
  { cat rumur.log >&2; die "rumur failed"; }
# -mcx16: the threaded verifier needs a 16-byte compare-and-swap (rumur's README)
cc -std=c11 -O3 -march=native -mcx16 -o tags tags.c -lpthread >cc.log 2>&1 ||
  { cat cc.log >&2; die "cc failed on rumur's tags.c"; }
t0=$(now)
rc=0; ./tags >tags.out 2>&1 || rc=$?
t1=$(now)
states=$(awk '/^[ \t]*[0-9]+ states, [0-9]+ rules fired/{print $1; exit}' tags.out)
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b - a}')
if grep -q 'invariant "fn-sees-owner" failed' tags.out; then verdict=violated
elif [ "$rc" = 0 ] && grep -q "No error found" tags.out; then verdict=holds
else verdict=incomplete; fail=1; tail -5 tags.out >&2
fi
echo "rumur ${states:-?} $secs $verdict"
exit $fail
