#!/usr/bin/env bash
# blkmc prove as the parameters grow: proof times (z3 seconds) of the tags
# model's invariants for more and more tags and submitters, with the
# explicit explorer's states and time at the sizes it can reach (ntags <= 16)
# as the baseline, and the ratio explorer time / proof time.
# Usage: BLKMC=build/blkmc bench/prove-scaling.sh   (make -f Makefile.verify bench-prove)
#   PROVE_TIME: time limit per proof (default 60 s); EXPLORE_TIME: per check (default 60 s)
set -uo pipefail
BLKMC=${BLKMC:-build/blkmc}
PT=${PROVE_TIME:-60}
ET=${EXPLORE_TIME:-60}

prove() {  # variant prop params... -> "verdict k seconds"
  local v=$1 p=$2; shift 2
  local args=()
  for kv in "$@"; do args+=(-p "$kv"); done
  "$BLKMC" prove tags -v "$v" --prop "$p" "${args[@]}" --time "$PT" --json 2>/dev/null |
    python3 -c 'import json,sys; r=json.load(sys.stdin)[0]; print(r["verdict"], r["k"], "%.3f" % r["seconds"])' 2>/dev/null ||
    echo "error - -"
}

explore() {  # variant prop ntags nsub -> "verdict states seconds" (or "- - -")
  local v=$1 p=$2 n=$3 s=$4
  if [ "$n" -gt 16 ] || [ "$s" -gt 8 ]; then echo "- - -"; return; fi
  "$BLKMC" check tags -v "$v" --prop "$p" -p ntags="$n" -p submitters="$s" -p rounds=1 -p pool=0 \
    --bfs -q --json --time "$ET" 2>/dev/null |
    python3 -c 'import json,sys; r=json.load(sys.stdin); v=r["properties"][0]["verdict"]; print(v if r["stop"]=="complete" or v=="violated" else "incomplete", r["stats"]["states"], "%.3f" % r["stats"]["seconds"])' 2>/dev/null ||
    echo "error - -"
}

row() {  # variant prop ntags nsub
  local v=$1 p=$2 n=$3 s=$4
  read -r pv pk ps <<<"$(prove "$v" "$p" ntags="$n" submitters="$s" rounds=1 pool=0)"
  read -r ev es et <<<"$(explore "$v" "$p" "$n" "$s")"
  local ratio="-"
  if [ "$et" != "-" ] && [ "$ps" != "-" ]; then
    ratio=$(python3 -c "print('%.2f' % ($et / max($ps, 1e-6)))")
  fi
  printf '%-10s %-16s %6s %4s | %-10s %3s %9s | %-10s %10s %9s | %8s\n' \
    "$v" "$p" "$n" "$s" "$pv" "$pk" "$ps" "$ev" "$es" "$et" "$ratio"
}

printf '%-10s %-16s %6s %4s | %-10s %3s %9s | %-10s %10s %9s | %8s\n' \
  variant property ntags subs "prove" k "z3 s" explore states "seconds" "exp/prove"
# Plain induction (no lemmas needed): grows with the tags, then submitters.
for n in 4 8 16 32 64 256 1024; do row tag-match no-null-deref "$n" 3; done
for s in 2 4 8 16 32 64; do row refcount no-null-deref 64 "$s"; done
# Violations: BMC finds the shortest path; past k <= 1 the lemmas are proved
# first (lemmas on demand), which is what grows with the size here.
for n in 4 16 64 256; do row v4.11 no-null-deref "$n" 2; done
# Proofs that need the strengthening lemmas (each proved first).
for n in 2 4 8 16 32 64; do row tag-match fn-sees-owner "$n" 3; done
for n in 2 4 8 16; do row refcount count-owner-only "$n" 2; done
