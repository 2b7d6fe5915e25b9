#!/usr/bin/env bash
# compare-binaries.sh -- the same benchmark runs with two blkmc binaries
# (e.g. main before and after a refactor), interleaved so that machine load
# hits both alike: the SPIN benchmark's tags configurations (state counts
# must be equal) and the mq-deadline suite's check rows (states and
# states/s in total). Prints each run and the NEW/OLD ratios.
#
# usage: bench/compare-binaries.sh OLD-BLKMC NEW-BLKMC
# environment: REPEAT (runs per binary and tags config, the fastest counts;
#              default 3), CONFIGS (ntags/submitters/rounds, default
#              "4/3/2 4/3/3"), CPU (core to pin to, default 0)
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 OLD-BLKMC NEW-BLKMC" >&2; exit 2; }
old=$1 new=$2
for b in "$old" "$new"; do [ -x "$b" ] || { echo "compare-binaries: '$b' is not executable" >&2; exit 2; }; done
REPEAT=${REPEAT:-3}
CONFIGS=${CONFIGS:-"4/3/2 4/3/3"}
CPU=${CPU:-0}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
pin=()
if command -v taskset >/dev/null && taskset -c "$CPU" true 2>/dev/null; then pin=(taskset -c "$CPU"); fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "STATES SECONDS BYTES/STATE" of one tags run (DFS, fn-sees-owner holds).
tags_run() {
  local bin=$1 nt=$2 ns=$3 nr=$4
  "${pin[@]}" "$bin" check tags -v refcount --prop fn-sees-owner -p ntags="$nt" -p submitters="$ns" \
    -p rounds="$nr" --json -q 2>/dev/null |
    python3 -c 'import json,sys; s=json.load(sys.stdin)["stats"]; print(s["states"], s["seconds"], s["bytes_per_state"])'
}

echo "tags, refcount, fn-sees-owner, DFS (fastest of $REPEAT per binary)"
printf "%-8s %12s %10s %10s %10s %10s %8s %8s\n" config states "old s" "new s" "old B/st" "new B/st" speed memory
for c in $CONFIGS; do
  IFS=/ read -r nt ns nr <<<"$c"
  best_old="" best_new=""
  for ((i = 0; i < REPEAT; i++)); do
    for who in old new; do
      bin=$old; [ $who = new ] && bin=$new
      read -r st sec bps < <(tags_run "$bin" "$nt" "$ns" "$nr")
      eval "prev=\${best_$who}"
      prev_sec=$(echo "$prev" | cut -d' ' -f2)
      if [ -z "$prev" ] || python3 -c "import sys; sys.exit(0 if $sec < $prev_sec else 1)"; then
        eval "best_$who=\"$st $sec $bps\""
      fi
    done
  done
  read -r so to bo <<<"$best_old"
  read -r sn tn bn <<<"$best_new"
  [ "$so" = "$sn" ] || { echo "compare-binaries: $c: state counts differ ($so vs $sn)" >&2; exit 1; }
  python3 - "$c" "$so" "$to" "$tn" "$bo" "$bn" <<'EOF'
import sys
c, st, to, tn, bo, bn = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:])
print(f"{c:<8} {st:>12,} {to:>10.3f} {tn:>10.3f} {bo:>10.1f} {bn:>10.1f} {to/tn:>7.2f}x {bn/bo:>7.2f}x")
EOF
done

echo
echo "mq-deadline suite rows (check deadline, one BFS per parameter set; fastest of $REPEAT per binary)"
"$new" suite --expand "$root/model" | grep '^check deadline ' >"$tmp/rows.suite"
for ((i = 0; i < REPEAT; i++)); do
  for who in old new; do
    bin=$old; [ $who = new ] && bin=$new
    "${pin[@]}" "$bin" suite "$tmp/rows.suite" | awk -v who=$who '
      $1 == "deadline" && !seen[$2 " " $3]++ { runs++; states += $7; secs += $8 }
      END { printf "%s %d %d %.3f\n", who, runs, states, secs }' >>"$tmp/deadline"
  done
done
python3 - "$tmp/deadline" <<'EOF'
import sys
rows = {}
for l in open(sys.argv[1]):
    w, r, s, t = l.split()
    if w not in rows or float(t) < rows[w][2]:
        rows[w] = (int(r), int(s), float(t))
for w in ("old", "new"):
    r, s, t = rows[w]
    print(f"{w}: {r} runs, {s:,} states, {t:.2f} s, {s / t:,.0f} states/s")
(ro, so, to), (rn, sn, tn) = rows["old"], rows["new"]
print("states equal" if so == sn else f"STATES DIFFER: {so} vs {sn}")
print(f"speed new/old: {(sn / tn) / (so / to):.2f}x")
sys.exit(0 if so == sn else 1)
EOF
