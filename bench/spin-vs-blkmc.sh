#!/usr/bin/env bash
# spin-vs-blkmc.sh -- explore the same blk-mq "tags" state space with SPIN
# (bench/tags.pml) and with blkmc, check that both find the same number of
# states, and compare speed and memory per state.
#
# usage: bench/spin-vs-blkmc.sh [CONFIG...]
#   CONFIG = ntags/submitters/rounds[/pool[/variant]], default pool 0 and
#   variant refcount; default configs: 3/2/2 4/3/2 4/3/3.
# environment:
#   BLKMC       blkmc binary (default: build/blkmc under the repository root)
#   PROP        blkmc property (default fn-sees-owner; must HOLD so that both
#               tools explore the whole space; "deadlock" also works)
#   REPEAT      runs per tool and config, the fastest is reported (default 1)
#   CPU         core to pin both tools to with taskset (default 0)
#   PAN_CFLAGS  extra gcc flags for pan (e.g. -DNOBOUNDCHECK)
#   PAN_MEMLIM  pan's memory limit in MB (default 16384)
#
# Exit status: 0 if every configuration agrees, 1 if a state count differs
# (or a tool failed / found a violation, which makes the counts
# meaningless), 2 on usage or setup errors.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
BLKMC=${BLKMC:-$root/build/blkmc}
PROP=${PROP:-fn-sees-owner}
REPEAT=${REPEAT:-1}
CPU=${CPU:-0}
PAN_CFLAGS=${PAN_CFLAGS:-}
PAN_MEMLIM=${PAN_MEMLIM:-16384}
model=$here/tags.pml

if [ $# -gt 0 ]; then configs=("$@"); else configs=(3/2/2 4/3/2 4/3/3); fi

die() { echo "spin-vs-blkmc: $*" >&2; exit 2; }
[ -x "$BLKMC" ] || die "blkmc binary '$BLKMC' not found (set BLKMC)"
command -v spin >/dev/null || die "spin not found"
command -v gcc >/dev/null || die "gcc not found"
[ -f "$model" ] || die "$model not found"

# Pin to one core when taskset is available (and the core exists).
pin=()
if command -v taskset >/dev/null && taskset -c "$CPU" true 2>/dev/null; then
  pin=(taskset -c "$CPU")
else
  echo "note: taskset unavailable, runs are not pinned" >&2
fi

# JSON field reader: jq if present, else python3.
jget() {  # jget FILE .a.b
  if command -v jq >/dev/null; then
    jq -r "$2 // empty" "$1"
  else
    python3 - "$1" "$2" <<'EOF'
import json, re, sys
v = json.load(open(sys.argv[1]))
for k, i in re.findall(r'\.(\w+)(?:\[(\d+)\])?', sys.argv[2]):
    v = v.get(k) if isinstance(v, dict) else None
    if i and isinstance(v, list):
        v = v[int(i)] if int(i) < len(v) else None
print('' if v is None else v)
EOF
  fi
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/spin-vs-blkmc.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# tags.pml's property switches: fn-sees-owner and count-owner-only are
# assertions there; pan always looks for invalid end states (= blkmc's
# deadlock) unless run with -E, so for any other property we pass -E and
# neither tool checks deadlock.
case $PROP in
  fn-sees-owner) prop_def=-DFN_SEES_OWNER; pan_e=-E ;;
  count-owner-only) prop_def=-DCOUNT_OWNER_ONLY; pan_e=-E ;;
  deadlock)      prop_def=;                pan_e= ;;
  *) die "PROP=$PROP has no SPIN counterpart in tags.pml (use fn-sees-owner, count-owner-only or deadlock)" ;;
esac

rows=()
fail=0
for cfg in "${configs[@]}"; do
  IFS=/ read -r ntags subs rounds pool variant <<<"$cfg"
  pool=${pool:-0}
  variant=${variant:-refcount}
  case $variant in
    v4.11) V=V4_11 ;; null-check) V=NULL_CHECK ;;
    refcount) V=REFCOUNT ;; tag-match) V=TAG_MATCH ;;
    *) die "unknown variant '$variant' in config '$cfg'" ;;
  esac
  name="$ntags/$subs/$rounds/$pool"
  [ "$variant" = refcount ] || name="$name/$variant"
  echo "== $name: blkmc" >&2

  # ---- blkmc: fastest of REPEAT runs ------------------------------------
  # --no-reduce: the full state space, like pan -DNOREDUCE (bench/reduce.py
  # compares the reduced searches).
  bj=$tmp/blkmc.json
  best=""
  for ((i = 0; i < REPEAT; i++)); do
    if ! "${pin[@]}" "$BLKMC" check tags --variant "$variant" \
        --param ntags="$ntags" --param submitters="$subs" \
        --param rounds="$rounds" --param pool="$pool" \
        --prop "$PROP" --no-reduce --json -q >"$tmp/b.json"; then
      echo "blkmc failed on $name" >&2; fail=1; continue 2
    fi
    s=$(jget "$tmp/b.json" .stats.seconds)
    if [ -z "$best" ] || awk -v a="$s" -v b="$best" 'BEGIN{exit !(a<b)}'; then
      best=$s; cp "$tmp/b.json" "$bj"
    fi
  done
  b_states=$(jget "$bj" .stats.states)
  b_secs=$(jget "$bj" .stats.seconds)
  b_bps=$(jget "$bj" .stats.bytes_per_state)
  b_verdict=$(jget "$bj" '.properties[0].verdict')
  b_stop=$(jget "$bj" .stop)
  if [ "$b_verdict" != holds ] || [ "$b_stop" != complete ]; then
    echo "blkmc on $name: verdict '$b_verdict', stop '$b_stop': not a full exploration" >&2
    fail=1
  fi

  # ---- SPIN: generate and compile pan --------------------------------------
  echo "== $name: spin" >&2
  d=$tmp/$ntags-$subs-$rounds-$pool-$variant
  mkdir -p "$d"
  # -o2: keep write-only variables (the iterator's count) in the state
  # vector; SPIN would otherwise hide them and merge states blkmc keeps apart.
  (cd "$d" && spin -a -o2 -DNTAGS="$ntags" -DSUBMITTERS="$subs" \
      -DROUNDS="$rounds" -DPOOL="$pool" -DVARIANT="$V" $prop_def "$model" \
      >spin.log 2>&1) || { cat "$d/spin.log" >&2; die "spin -a failed on $name"; }
  # -DNOREDUCE: no partial-order reduction (blkmc explores every
  # interleaving). -DSAFETY: no cycle detection. The default VECTORSZ (1024
  # bytes) is ample: the largest configuration needs about 100 bytes.
  # shellcheck disable=SC2086
  (cd "$d" && gcc -O2 -DSAFETY -DNOREDUCE -DMEMLIM="$PAN_MEMLIM" $PAN_CFLAGS \
      -o pan pan.c >gcc.log 2>&1) || { cat "$d/gcc.log" >&2; die "gcc failed on $name"; }

  # Hash table 2^w slots with w = ceil(log2(states)) from blkmc's count (load
  # factor 0.5..1; pan chains collisions, so this is no handicap: a 4x larger
  # table measured no faster). Depth limit: every step makes progress, so a
  # path has at most submitters*rounds*(5 or 6 with pool) + ntags steps.
  w=$(awk -v n="${b_states:-16777216}" 'BEGIN{w=0; while (2^w < n) w++; if (w<10) w=10; print w}')
  per=$([ "$pool" -ge 1 ] && echo 6 || echo 5)
  depth=$((subs * rounds * per + ntags + 10))

  best=""
  for ((i = 0; i < REPEAT; i++)); do
    t0=$(date +%s%N)
    # shellcheck disable=SC2086
    (cd "$d" && "${pin[@]}" ./pan -m"$depth" -w"$w" $pan_e >pan.out 2>&1) || true
    t1=$(date +%s%N)
    if grep -q "max search depth too small" "$d/pan.out"; then
      die "pan depth limit $depth too small on $name (model bug?)"
    fi
    # pan's own "elapsed time" covers the search only, but it is printed
    # with 3 digits from a 10 ms clock: below 0.1 s use the wall clock of
    # the whole pan process instead (slightly unfair to SPIN: it includes
    # start-up and clearing the hash table).
    s=$(awk '/^pan: elapsed time/{print $4}' "$d/pan.out")
    [ -n "$s" ] || { cat "$d/pan.out" >&2; die "no pan timing on $name"; }
    s=$(awk -v s="$s" -v ns=$((t1 - t0)) 'BEGIN{print (s < 0.1) ? ns / 1e9 : s}')
    if [ -z "$best" ] || awk -v a="$s" -v b="$best" 'BEGIN{exit !(a<b)}'; then
      best=$s; cp "$d/pan.out" "$d/pan.best"
    fi
  done
  p_secs=$best
  p_states=$(awk '/states, stored/{print $1; exit}' "$d/pan.best")
  p_errs=$(awk '/errors:/{print $NF; exit}' "$d/pan.best")
  # SPIN memory: "total actual memory usage" (MB = 2^20 bytes), i.e. what pan
  # really allocated: hash table + (compressed) state store + DFS stack (tiny,
  # -m is just above the maximal depth). That is the counterpart of blkmc's
  # bytes_per_state (its visited-state store / states). The "equivalent
  # memory usage" line is a hypothetical uncompressed size without the hash
  # table, so it is not used.
  p_mb=$(awk '/total actual memory usage/{print $1; exit}' "$d/pan.best")
  if [ "$p_errs" != 0 ] || grep -q "Search not completed" "$d/pan.best"; then
    echo "pan on $name: errors: $p_errs (search not complete):" >&2
    grep -E "^pan:" "$d/pan.best" >&2 || true
    fail=1
  fi

  agree=yes
  [ "$p_states" = "$b_states" ] || { agree=NO; fail=1; }
  rows+=("$name $p_states $b_states $agree $p_secs $b_secs $p_mb $b_bps")
done

# ---- table ---------------------------------------------------------------
printf '\nSPIN %s (pan -O2 -DSAFETY -DNOREDUCE, %s) vs blkmc (%s), property %s\n' \
  "$(spin -V | awk '{print $3}')" "${pin[*]:-unpinned}" "$BLKMC" "$PROP"
printf '%s\n' "${rows[@]}" | awk '
function fmt(x) { return x >= 1e6 ? sprintf("%.2fM", x / 1e6) : x >= 1e3 ? sprintf("%.0fk", x / 1e3) : sprintf("%.0f", x) }
BEGIN {
  hdr = "%-18s %12s %12s %6s %9s %9s %10s %10s %7s %9s %9s %7s\n"
  printf hdr, "config", "spin states", "blkmc states", "agree", "spin s", "blkmc s",
         "spin st/s", "blkmc st/s", "speed", "spin B/st", "blkmc B/st", "mem"
}
{
  ps = $5 > 0 ? $2 / $5 : 0; bs = $6 > 0 ? $3 / $6 : 0
  pb = $2 > 0 ? $7 * 1048576 / $2 : 0
  speed = ps > 0 ? bs / ps : 0; mem = pb > 0 ? $8 / pb : 0
  printf "%-18s %12d %12d %6s %9.4f %9.4f %10s %10s %6.2fx %9.1f %9.1f %6.2fx\n",
    $1, $2, $3, $4, $5, $6, fmt(ps), fmt(bs), speed, pb, $8, mem
}
END {
  print "config = ntags/submitters/rounds/pool[/variant]; speed = blkmc/spin states per second;"
  print "mem = blkmc/spin bytes per state (< 1: blkmc needs less). B/st: spin = total actual"
  print "memory usage / states, blkmc = stats.bytes_per_state (visited-state store / states)."
}'
exit $fail
