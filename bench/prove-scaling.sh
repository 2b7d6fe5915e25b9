#!/usr/bin/env bash
# blkmc prove as the parameters grow: proof times (z3 seconds) of the tags
# and inflight models' invariants for more and more tags, submitters and
# CPUs, with the explicit explorer's states and time at the sizes it can
# reach (tags: ntags <= 16; inflight: 4 submitters, 3 CPUs) as the baseline,
# and the ratio explorer time / proof time.
# Usage: BLKMC=build/blkmc bench/prove-scaling.sh   (make -f Makefile.verify bench-prove)
#   PROVE_TIME: time limit per proof (default 60 s); EXPLORE_TIME: per check (default 60 s)
set -uo pipefail
BLKMC=${BLKMC:-build/blkmc}
PT=${PROVE_TIME:-60}
ET=${EXPLORE_TIME:-60}

prove() {  # model variant prop params... -> "verdict k seconds"
  local m=$1 v=$2 p=$3; shift 3
  local args=()
  for kv in "$@"; do args+=(-p "$kv"); done
  "$BLKMC" prove "$m" -v "$v" --prop "$p" "${args[@]}" --time "$PT" --json 2>/dev/null |
    python3 -c 'import json,sys; r=json.load(sys.stdin)[0]; print(r["verdict"], r["k"], "%.3f" % r["seconds"])' 2>/dev/null ||
    echo "error - -"
}

check() {  # model variant prop params... -> "verdict states seconds" of a BFS check
  local m=$1 v=$2 p=$3; shift 3
  local args=()
  for kv in "$@"; do args+=(-p "$kv"); done
  "$BLKMC" check "$m" -v "$v" --prop "$p" "${args[@]}" --bfs -q --json --time "$ET" 2>/dev/null |
    python3 -c 'import json,sys; r=json.load(sys.stdin); v=r["properties"][0]["verdict"]; print(v if r["stop"]=="complete" or v=="violated" else "incomplete", r["stats"]["states"], "%.3f" % r["stats"]["seconds"])' 2>/dev/null ||
    echo "error - -"
}

ratio() {  # explorer seconds, proof seconds -> their ratio (or "-")
  if [ "$1" != "-" ] && [ "$2" != "-" ]; then
    python3 -c "print('%.2f' % ($1 / max($2, 1e-6)))"
  else
    echo "-"
  fi
}

explore() {  # variant prop ntags nsub -> "verdict states seconds" (or "- - -")
  local v=$1 p=$2 n=$3 s=$4
  if [ "$n" -gt 16 ] || [ "$s" -gt 8 ]; then echo "- - -"; return; fi
  check tags "$v" "$p" ntags="$n" submitters="$s" rounds=1 pool=0
}

row() {  # variant prop ntags nsub
  local v=$1 p=$2 n=$3 s=$4
  read -r pv pk ps <<<"$(prove tags "$v" "$p" ntags="$n" submitters="$s" rounds=1 pool=0)"
  read -r ev es et <<<"$(explore "$v" "$p" "$n" "$s")"
  printf '%-10s %-16s %6s %4s | %-10s %3s %9s | %-10s %10s %9s | %8s\n' \
    "$v" "$p" "$n" "$s" "$pv" "$pk" "$ps" "$ev" "$es" "$et" "$(ratio "$et" "$ps")"
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

# inflight: the accounting properties for more submitters and CPUs (one
# round, one read, two partitions). The explorer holds 4 submitters and 3 CPUs.
explore_inflight() {  # variant prop nsub cpus -> "verdict states seconds" (or "- - -")
  local v=$1 p=$2 s=$3 c=$4
  if [ "$s" -gt 4 ] || [ "$c" -gt 3 ]; then echo "- - -"; return; fi
  check inflight "$v" "$p" submitters="$s" cpus="$c" rounds=1 reads=1
}

irow() {  # variant prop nsub cpus
  local v=$1 p=$2 s=$3 c=$4
  read -r pv pk ps <<<"$(prove inflight "$v" "$p" submitters="$s" cpus="$c" rounds=1 reads=1)"
  read -r ev es et <<<"$(explore_inflight "$v" "$p" "$s" "$c")"
  printf '%-13s %-21s %4s %4s | %-10s %3s %9s | %-10s %10s %9s | %8s\n' \
    "$v" "$p" "$s" "$c" "$pv" "$pk" "$ps" "$ev" "$es" "$et" "$(ratio "$et" "$ps")"
}

echo
printf '%-13s %-21s %4s %4s | %-10s %3s %9s | %-10s %10s %9s | %8s\n' \
  variant property subs cpus "prove" k "z3 s" explore states "seconds" "exp/prove"
# With the lemmas (well-formed, counters-sum, quiescent-sum / read-bounded).
for s in 2 4 8 16 32; do irow percpu quiescent-exact-part "$s" 2; done
for c in 2 3 4 8 16; do irow percpu quiescent-exact-part 4 "$c"; done
for s in 2 4 8 16 32 64; do irow b0d97557ebfc quiescent-exact-part "$s" 1; done
for s in 2 4 8 16 32; do irow legacy-atomic live-read-bounded "$s" 1; done
# A violation: the per-CPU sum read while requests move between CPUs.
for s in 2 4 8 16; do irow percpu never-negative "$s" 2; done
