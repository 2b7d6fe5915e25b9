#!/usr/bin/env bash
# mpirun -np 2 and -np 3 against one process: `blkmc check` spread over MPI
# ranks (explorer/distributed_search.hpp) must find the same states,
# transitions, verdicts, maxima and traces (progress and starvation too). Skips (exit 77) where Open MPI
# (mpirun) or the MPI runner blkmc-mpi is missing.
# Usage: mpi_test.sh BLKMC SOURCE_DIR [SANITIZED]
set -u
B=$1
[ "${3:-0}" = 1 ] && { echo "SKIP: a -fsanitize build (Open MPI's runtime is not instrumented; tests/distributed_test.cpp covers the search)"; exit 77; }
command -v mpirun >/dev/null || { echo "SKIP: no mpirun (install openmpi-bin)"; exit 77; }
[ -x "$(dirname "$B")/blkmc-mpi" ] || { echo "SKIP: blkmc was built without MPI (no blkmc-mpi)"; exit 77; }
# Open MPI refuses root unless told; CI runs as root. Under
# AddressSanitizer, Open MPI's own allocations still held at exit are not
# blkmc's leaks.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

# The outcome without what depends on time, memory and the number of
# processes.
canon() {
  python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
for k in ("seconds", "states_per_second", "bytes_per_state", "store_bytes", "peak_rss_bytes", "threads", "ranks"):
    o["stats"].pop(k, None)
o.pop("traces_written", None)
print(json.dumps(o, sort_keys=True, indent=1))' "$1"
}

ROWS=(
  "tags -v v4.11 --prop no-null-deref --prop fn-sees-owner --prop walk-count-bounded"
  "tags -v refcount -p ntags=4 -p submitters=3 -p rounds=2 --prop fn-sees-owner"
  "tags -v refcount -p ntags=4 -p submitters=3 -p rounds=2 --prop fn-sees-owner --no-reduce --max-depth 12"
  "tags -v refcount -p ntags=4 -p submitters=3 -p rounds=2 --prop fn-sees-owner --max-states 5000"
  "tags -v tag-match -p ntags=3 -p submitters=2 -p rounds=2 -p pool=2 --prop walk-count-bounded"
  "sbitmap -v 040b83fcecfb -p tags=2 -p tasks=3 -p rounds=1 -p nr_ws=2 --prop wait-cnt-reset --prop deadlock --prop no-wasted-wakeup"
  "bfq -v refactor -p workload=17 -p clock=0 -p slice_idle=0 -p hw_tag=0 -p shadow=0 --prop same-decisions --prop conservation"
  "integrity -v 85253bac4d02 -p levels=3 -p owner=0 -p verify_fn=1 --prop free-once --prop deadlock"
  "deadline -v prio-5.14 -p workload=9 -p fifo_batch=1 --prop fair-ratio"
  "deadline -v v6.18 -p workload=8 -p clock=0 -p fifo_batch=4 --prop max-wait --prop max-wait<=20"
  "integrity -v 7c20f11680a4 -p owner=1 -p verify_fn=0 --prop progress --prop deadlock"
  "integrity -v 85253bac4d02 -p levels=3 --prop progress"
  "sbitmap -v 106397376c03 -p tasks=2 -p rounds=2 -p nr_ws=1 --prop no-lost-wakeup --prop deadlock"
  "deadline -v prio-5.14 -p workload=4 --prop starvation --prop progress"
  "deadline -v v6.18 -p workload=4 --prop starvation --prop starvation"
)
for np in 2 3; do
  for i in "${!ROWS[@]}"; do
    row=${ROWS[$i]}
    mkdir -p "$T/one$i" "$T/np$np-$i"
    # shellcheck disable=SC2086
    # (path measures search in one process only: the same search without them)
    "$B" check $row --no-path-measure --json -q --trace-out "$T/one$i/t.json" >"$T/one$i/out.json" 2>"$T/err"
    rc1=$?
    # shellcheck disable=SC2086
    mpirun --oversubscribe -np "$np" "$B" check $row --json -q --trace-out "$T/np$np-$i/t.json" \
      >"$T/np$np-$i/out.json" 2>"$T/err"
    rc2=$?
    if [ "$rc1" != "$rc2" ] || ! diff <(canon "$T/one$i/out.json") <(canon "$T/np$np-$i/out.json") >"$T/diff"; then
      fail=$((fail + 1))
      echo "FAIL: -np $np: $row: exit $rc1 vs $rc2"
      head -20 "$T/diff" "$T/err"
      continue
    fi
    traces=$(cd "$T/one$i" && ls t*.json 2>/dev/null | grep -v '^out' || true)
    same=1
    for t in $traces; do cmp -s "$T/one$i/$t" "$T/np$np-$i/$t" || { same=0; echo "FAIL: -np $np: $row: trace $t differs"; }; done
    [ "$(cd "$T/np$np-$i" && ls t*.json 2>/dev/null | wc -l)" = "$(echo "$traces" | grep -c .)" ] || same=0
    if [ $same = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
  done
done

expect() {  # expect RC TEXT DESCRIPTION -- command...
  local want=$1 text=$2 what=$3
  shift 4
  "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  if [ "$rc" = "$want" ] && grep -q -- "$text" "$T/err"; then pass=$((pass + 1)); else
    fail=$((fail + 1))
    echo "FAIL: $what: exit $rc (wanted $want), stderr:"
    head -5 "$T/err"
  fi
}
expect 2 "breadth-first" "--dfs is refused" -- mpirun --oversubscribe -np 2 "$B" check tags -v v4.11 --dfs -q
expect 2 "only .blkmc check. and .blkmc suite. run" "other commands are refused" -- \
  mpirun --oversubscribe -np 2 "$B" simulate deadline -v v6.18
expect 2 "unknown model" "a bad model name is one line" -- mpirun --oversubscribe -np 2 "$B" check nosuch -v x

echo "mpi: $pass passed, $fail failed"
[ "$fail" = 0 ]
