#!/usr/bin/env bash
# End-to-end checks of the blkmc command: verdicts, exit codes, traces, and
# one-line errors on bad input. Usage: cli_test.sh BLKMC SOURCE_DIR
set -u
B=$1
SRC=$2
T=$(mktemp -d)
trap 'umount "$T/small" 2>/dev/null; rm -rf "$T"' EXIT
pass=0 fail=0

expect() {  # expect RC DESCRIPTION -- command...
  local want=$1 what=$2
  shift 3
  "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  if [ "$rc" = "$want" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: $what: exit $rc, wanted $want"
    head -5 "$T/out" "$T/err"
  fi
}
contains() {  # contains FILE TEXT DESCRIPTION
  if grep -q -- "$2" "$1"; then pass=$((pass + 1)); else
    fail=$((fail + 1))
    echo "FAIL: $3: '$2' not in $1"
    head -5 "$1"
  fi
}
one_line_error() {  # the error is exactly one line on stderr, nothing on stdout
  if [ "$(wc -l <"$T/err")" = 1 ] && [ ! -s "$T/out" ]; then pass=$((pass + 1)); else
    fail=$((fail + 1))
    echo "FAIL: $1: not a one-line error"
    cat "$T/err"
  fi
}

expect 0 "list" -- "$B" list
contains "$T/out" "tag-match" "list names variants"
expect 0 "list --json" -- "$B" list --json
contains "$T/out" '"67f3b2f822b7"' "list --json has commits"

expect 0 "refcount holds" -- "$B" check tags --variant refcount -q
expect 1 "v4.11 violated" -- "$B" check tags --variant v4.11 --bfs -q --trace-out "$T/t.json"
contains "$T/out" "no-null-deref          violated" "v4.11 verdict line"
[ -f "$T/t-no-null-deref.json" ] && [ -f "$T/t-fn-sees-owner.json" ] && pass=$((pass + 1)) ||
  { fail=$((fail + 1)); echo "FAIL: one trace per violated property"; }
expect 0 "replay reproduces" -- "$B" replay "$T/t-no-null-deref.json"
contains "$T/out" "NULL pointer dereference" "replay story"
expect 1 "single prop trace path" -- "$B" check tags -v null-check --bfs -q --prop fn-sees-owner --trace-out "$T/one.json"
[ -f "$T/one.json" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: --trace-out F with one property"; }

expect 1 "json output" -- "$B" check tags -v null-check --bfs -q --json --no-reduce
python3 - "$T/out" <<'PY' && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: --json content"; }
import json, sys
j = json.load(open(sys.argv[1]))
v = {p["property"]: p["verdict"] for p in j["properties"]}
assert v == {"no-null-deref": "holds", "fn-sees-owner": "violated", "count-owner-only": "holds",
             "walk-count-bounded": "holds", "deadlock": "holds"}, v
assert j["stats"]["states"] == 441, j["stats"]
assert j["stats"]["reduction"] == "none", j["stats"]
assert j["stop"] == "complete"
PY
# With the reductions (the default): the same verdicts from fewer states.
expect 1 "json output, reduced" -- "$B" check tags -v null-check --bfs -q --json
python3 - "$T/out" <<'PY' && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: --json content, reduced"; }
import json, sys
j = json.load(open(sys.argv[1]))
v = {p["property"]: p["verdict"] for p in j["properties"]}
assert v == {"no-null-deref": "holds", "fn-sees-owner": "violated", "count-owner-only": "holds",
             "walk-count-bounded": "holds", "deadlock": "holds"}, v
assert 0 < j["stats"]["states"] < 441, j["stats"]
assert "symmetry (2 submitters)" in j["stats"]["reduction"], j["stats"]
PY
expect 0 "slicing named" -- "$B" check tags -v refcount -q --prop fn-sees-owner
contains "$T/out" "reduction: slicing (count, stale_count not stored)" "check prints the reduction"
expect 2 "suite flags exclude each other" -- "$B" suite --no-reduce --compare-reductions model/tags/tags.suite

# Determinism: the same run twice gives byte-identical traces.
"$B" check tags -v refcount -p pool=2 -p rounds=2 --bfs -q --prop fn-sees-owner --trace-out "$T/a.json" >/dev/null
"$B" check tags -v refcount -p pool=2 -p rounds=2 --bfs -q --prop fn-sees-owner --trace-out "$T/b.json" >/dev/null
cmp -s "$T/a.json" "$T/b.json" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: traces differ between runs"; }
# Every checked-in counterexample is exactly what its own check finds now.
for f in "$SRC"/counterexamples/*/*.json; do
  "$B" check --from-trace "$f" -q --trace-out "$T/regen.json" >/dev/null
  cmp -s "$T/regen.json" "$f" && pass=$((pass + 1)) ||
    { fail=$((fail + 1)); echo "FAIL: $f is not what its check finds now"; }
done
# --from-trace: options override the trace's.
expect 0 "from-trace, fixed variant" -- "$B" check --from-trace "$SRC/counterexamples/tags/tags-null-check-fn-sees-owner.json" -v refcount -q
expect 1 "from-trace, param override keeps the violation" -- "$B" check --from-trace "$SRC/counterexamples/tags/tags-refcount-pool2-fn-sees-owner.json" -p ntags=3 -q
expect 0 "from-trace, param override removes it" -- "$B" check --from-trace "$SRC/counterexamples/tags/tags-refcount-pool2-fn-sees-owner.json" -p pool=1 -q
expect 2 "from-trace, other model" -- "$B" check nosuch --from-trace "$SRC/counterexamples/tags/tags-null-check-fn-sees-owner.json"; one_line_error "from-trace other model"
expect 2 "check without a model" -- "$B" check -v refcount; one_line_error "check without a model"
# Seed 004 scaled (docs/seed004.md): deep-fix-v1 never leaves a stale deep flag
# (3.1-rc5's and v2's violations are checked-in traces, regenerated above).
expect 0 "seed 004 4/1/1: v1 keeps no stale deep flag" -- "$B" check cfq -v deep-fix-v1 \
  -p workload="$SRC/bench/workloads/deep-stale-4-1-1.wl" -p clock=1 -p ghost_check=1 --prop stale-deep -q
# --census: a factor per variable after the verdicts; refused before the search where the store keeps no states.
expect 0 "census" -- "$B" check tags -v refcount --prop fn-sees-owner --census -q
contains "$T/out" "census of the" "census prints its table"
expect 2 "census with the hash store" -- "$B" check tags -v refcount --census --store hash -q; one_line_error "census hash"

expect 3 "max-states" -- "$B" check tags -v refcount -p ntags=6 -p submitters=4 -p rounds=3 --max-states 1000 -q
contains "$T/out" "incomplete" "max-states verdict"
expect 3 "max-depth" -- "$B" check tags -v refcount -p ntags=4 -p submitters=3 -p rounds=2 --max-depth 5 -q
expect 3 "time" -- "$B" check tags -v refcount -p ntags=8 -p submitters=6 -p rounds=4 --time 0.5 -q
expect 3 "memory" -- "$B" check tags -v refcount -p ntags=8 -p submitters=6 -p rounds=4 --memory 8 -q
contains "$T/out" "memory limit reached" "memory stop reason"

# Compare: a fix is not a regression, the reverse is.
expect 0 "compare fix" -- "$B" compare tags --before null-check --after refcount
contains "$T/out" "FIXED" "compare marks the fix"
expect 1 "compare regression" -- "$B" compare tags --before refcount --after null-check
contains "$T/out" "REGRESSION" "compare marks the regression"
# fair-ratio's long-run share: a line per process of the pair in check and
# compare, and under --json.
W1="$SRC/bench/workloads/deep-stale-1.wl"
expect 0 "long run in check" -- "$B" check cfq -v deep-fix-v2 -p workload="$W1" -p clock=1 --prop fair-ratio --bfs -q
contains "$T/out" "long run: early is served at least 5 sector(s) for every 5 of late0's (1.00)" "long run in check"
expect 0 "long run in json" -- "$B" check cfq -v deep-fix-v2 -p workload="$W1" -p clock=1 --prop fair-ratio --bfs -q --json
contains "$T/out" '"long_run"' "long run in json"
expect 0 "long run in compare" -- "$B" compare cfq --before 3.1-rc5 --after deep-fix-v2 -p workload="$W1" -p clock=1 --prop fair-ratio
contains "$T/out" "long run: late0" "compare lists the long run"
# Each share's cycle as a lasso trace, which replay goes round until a state
# repeats; a share the cycle does not give, or a share without its loop, fails.
expect 0 "long run traces" -- "$B" check cfq -v deep-fix-v2 -p workload="$W1" -p clock=1 --prop fair-ratio --bfs -q \
  --trace-out "$T/lr.json"
contains "$T/out" "trace for fair-ratio (long run: early) written to" "long run trace written"
[ -f "$T/lr-fair-ratio-long-run-early.json" ] && [ -f "$T/lr-fair-ratio-long-run-late0.json" ] && pass=$((pass + 1)) ||
  { fail=$((fail + 1)); echo "FAIL: a long run trace per process"; }
expect 0 "long run trace replays" -- "$B" replay "$T/lr-fair-ratio-long-run-early.json"
contains "$T/out" "reproduced: going round steps .* forever serves early 5 sector(s) for every 5 of late0's (1.00), a weakly fair cycle" \
  "long run replay verdict"
contains "$T/out" "repeat forever (from round 59 on, each round ends where it began)" "long run replay marks the cycle"
python3 - "$T/lr-fair-ratio-long-run-early.json" "$T/lr-more.json" "$T/lr-noloop.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["share"]["mine"] += 1
json.dump(j, open(sys.argv[2], "w"))
j["share"]["mine"] -= 1
del j["loop"]
json.dump(j, open(sys.argv[3], "w"))
PY
expect 4 "a share the cycle does not give" -- "$B" replay "$T/lr-more.json"
contains "$T/out" "NOT reproduced: round 1: early is served 5 sector(s) and late0 5, not the recorded 6 and 5" \
  "long run replay refuses a larger share"
expect 2 "a share without its loop" -- "$B" replay "$T/lr-noloop.json"; one_line_error "a share without its loop"
# CFQ's share_while_deep: the share over the runs on which the first of the
# pair keeps its deep flag, said on the line and checked at every step of
# the cycle by replay; the lasso fits only a model restricted the same way.
printf '%s\n' "device depth=1 slot=1 spindles=1 rotational=1 service=1 seek=0" \
  "proc b dir=R sync=0 cyclic=1 reqs=0" "proc a dir=R sync=0 cyclic=1 reqs=96,112,128,144" "fair a b" >"$T/deep.wl"
expect 0 "long run while deep" -- "$B" check cfq -v deep-fix-v2 -p workload="$T/deep.wl" -p clock=1 \
  -p share_while_deep=1 --prop fair-ratio --bfs -q --trace-out "$T/dp.json"
contains "$T/out" "long run: while a keeps its deep flag, a is served at least 36 sector(s) for every 30 of b's (1.20)" \
  "long run while deep in check"
expect 0 "long run while deep replays" -- "$B" replay "$T/dp-fair-ratio-long-run-a.json"
contains "$T/out" "a weakly fair cycle, while a keeps its deep flag at every step of it" "long run while deep replay"
python3 - "$T/dp-fair-ratio-long-run-a.json" "$T/dp-all.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
del j["share"]["within"]
json.dump(j, open(sys.argv[2], "w"))
PY
expect 4 "a restricted share replayed as unrestricted" -- "$B" replay "$T/dp-all.json"
one_line_error "a restricted share replayed as unrestricted"
# A search stopped at a limit decides nothing: not FIXED, exit 3.
expect 3 "compare with a limit" -- "$B" compare tags --before null-check --after refcount --max-states 20
contains "$T/out" "UNDECIDED" "compare marks what a limit left open"
if grep -q "FIXED" "$T/out"; then fail=$((fail + 1)); echo "FAIL: a limit's incomplete is called FIXED"; else pass=$((pass + 1)); fi

# Bad input: one line on stderr, exit 2 (4 for a trace that does not fit).
expect 2 "unknown model" -- "$B" check nosuch --variant x; one_line_error "unknown model"
contains "$T/err" "valid: tags" "unknown model lists valid ones"
expect 2 "unknown variant" -- "$B" check tags --variant v9; one_line_error "unknown variant"
contains "$T/err" "valid: v4.11, null-check, refcount, tag-match" "unknown variant lists valid ones"
expect 2 "unknown property" -- "$B" check tags --variant refcount --prop nope; one_line_error "unknown property"
expect 2 "absurd bound" -- "$B" check tags --variant refcount -p ntags=100000; one_line_error "absurd bound"
expect 2 "not k=v" -- "$B" check tags --variant refcount -p ntags; one_line_error "not k=v"
expect 2 "bad number" -- "$B" check tags --variant refcount -p ntags=2x; one_line_error "bad number"
expect 2 "zero max-states" -- "$B" check tags --variant refcount --max-states 0; one_line_error "zero max-states"
expect 2 "unknown subcommand" -- "$B" frobnicate; one_line_error "unknown subcommand"
expect 2 "--trace-out into no directory" -- "$B" check tags -v v4.11 -q --trace-out "$T/nodir/t.json"
one_line_error "--trace-out into no directory"
expect 2 "--store tree with --dfs" -- "$B" check tags -v refcount --store tree --dfs; one_line_error "--store tree with --dfs"
expect 2 "zero threads" -- "$B" check tags -v refcount --threads 0; one_line_error "zero threads"
expect 2 "--time nan" -- "$B" check tags -v refcount --time nan; one_line_error "--time nan"
expect 2 "--memory inf" -- "$B" check tags -v refcount --memory inf; one_line_error "--memory inf"
expect 2 "suite --time -1" -- "$B" suite --time -1 "$SRC/model/tags"; one_line_error "suite --time -1"
expect 2 "simulate --time nan" -- "$B" simulate deadline -v v6.18 --time nan; one_line_error "simulate --time nan"
# A check row the model refuses at run time fails that row; the rows already
# run keep their results (it aborted the whole suite before).
printf 'check tags refcount - fn-sees-owner holds\ncheck inflight percpu parts=1,target=3 deadlock holds\n' >"$T/late.suite"
expect 1 "suite with a late bad row" -- "$B" suite "$T/late.suite"
contains "$T/out" "1 passed, 1 failed" "a late bad row fails alone"
contains "$T/out" "target 3 but only 1 partitions" "the late row says why"
# A trace that cannot be written: the verdicts still come, then the error.
if [ -w /dev/full ]; then
  expect 2 "--trace-out /dev/full" -- "$B" check tags -v v4.11 -q --prop no-null-deref --trace-out /dev/full
  contains "$T/out" "no-null-deref          violated" "verdicts printed when the trace cannot be written"
fi
# The same counts and trace on 1 and 2 threads, and in every store.
for how in "--threads 1" "--threads 2" "--store tree" "--store hash"; do
  "$B" check tags -v null-check -q --prop fn-sees-owner --json $how --trace-out "$T/th.json" >"$T/th-out.json"
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["stats"]["states"], j["stats"]["transitions"])' "$T/th-out.json" >>"$T/th-counts"
  cat "$T/th.json" >>"$T/th-traces"
done
if [ "$(sort -u "$T/th-counts" | wc -l)" = 1 ] && [ "$(wc -l <"$T/th-counts")" = 4 ]; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: counts differ across threads and stores"; cat "$T/th-counts"
fi
# The disk and bitstate stores: the plain store's counts and trace (without
# partial-order reduction, which they do not use), and nothing left in the
# scratch directory.
mkdir -p "$T/scratch"
k=0
for how in "--no-por" "--store disk --disk-dir $T/scratch" "--store disk --disk-dir $T/scratch --sort-buffer 1" \
           "--store bitstate --disk-dir $T/scratch --bitstate-bits 24"; do
  k=$((k + 1))
  "$B" check tags -v null-check -q --prop fn-sees-owner --json $how --trace-out "$T/dk$k.json" >"$T/dk-out.json"
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["stats"]["states"], j["stats"]["transitions"], j["properties"][0]["verdict"])' "$T/dk-out.json" >>"$T/dk-counts"
  cmp -s "$T/dk1.json" "$T/dk$k.json" || { fail=$((fail + 1)); echo "FAIL: another trace with $how"; }
done
if [ "$(sort -u "$T/dk-counts" | wc -l)" = 1 ] && [ "$(wc -l <"$T/dk-counts")" = 4 ]; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: counts differ in the disk stores"; cat "$T/dk-counts"
fi
if [ -z "$(ls -A "$T/scratch")" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: scratch files left"; ls "$T/scratch"; fi
expect 0 "bitstate holds" -- "$B" check tags -v refcount -q --store bitstate --disk-dir "$T/scratch" --bitstate-bits 22
contains "$T/out" "(bitstate: ~" "a bitstate holds says the chance of an omission"
expect 3 "disk store at --max-states" -- "$B" check tags -v refcount -p ntags=4 -p submitters=3 -p rounds=2 -q --store disk --disk-dir "$T/scratch" --max-states 500
expect 2 "--store disk with --dfs" -- "$B" check tags -v refcount --store disk --dfs; one_line_error "--store disk with --dfs"
expect 2 "--sort-buffer without the disk store" -- "$B" check tags -v refcount --sort-buffer 4; one_line_error "--sort-buffer without the disk store"
expect 2 "--bitstate-bits too small" -- "$B" check tags -v refcount --store bitstate --bitstate-bits 3; one_line_error "--bitstate-bits too small"
expect 2 "--disk-dir not a directory" -- "$B" check tags -v refcount --store disk --disk-dir "$T/nope"; one_line_error "--disk-dir not a directory"
expect 2 "progress in the bitstate store" -- "$B" check workqueue -v before --prop all-work-runs --store bitstate --disk-dir "$T/scratch"
one_line_error "progress in the bitstate store"
# The disk store checks progress, with the plain store's verdict and trace.
"$B" check workqueue -v before --prop all-work-runs -q --json --trace-out "$T/pp.json" >"$T/plain.json"
rc_plain=$?
"$B" check workqueue -v before --prop all-work-runs -q --json --store disk --disk-dir "$T/scratch" \
  --trace-out "$T/pd.json" >"$T/disk.json"
rc_disk=$?
if [ "$rc_plain" = 1 ] && [ "$rc_disk" = 1 ] && cmp -s "$T/pp.json" "$T/pd.json" &&
  python3 -c 'import json, sys; a, b = (json.load(open(f))["properties"] for f in sys.argv[1:]); sys.exit(a != b)' \
    "$T/plain.json" "$T/disk.json"; then
  pass=$((pass + 1))
else
  fail=$((fail + 1))
  echo "FAIL: progress in the disk store: exit $rc_disk (plain $rc_plain), or another verdict or trace"
fi
if [ -z "$(ls -A "$T/scratch")" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: scratch files left after errors"; ls "$T/scratch"; fi
# --disk N: the disk store stops at the last level that fits, with what it
# found (tags 4/3/3 needs 630 MB in all), exit 3.
expect 3 "disk store at --disk 20" -- "$B" check tags -v refcount -p ntags=4 -p submitters=3 -p rounds=3 --no-reduce -q \
  --store disk --disk-dir "$T/scratch" --disk 20 --prop no-null-deref
contains "$T/out" "bfs search: disk space limit reached" "--disk: the stop says why"
states=$(sed -n 's/^  \([0-9]*\) states,.*/\1/p' "$T/out")
if [ "${states:-0}" -gt 100000 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: --disk 20 explored only ${states:-0} states"; fi
expect 2 "--disk without the disk store" -- "$B" check tags -v refcount --disk 20; one_line_error "--disk without the disk store"
# A small filesystem (root: a 40 MiB tmpfs): the store uses the disk there
# is, not a fixed reserve, and stops when it would fill.
if [ "$(id -u)" = 0 ] && mkdir "$T/small" && mount -t tmpfs -o size=40m blkmc-test "$T/small" 2>/dev/null; then
  expect 3 "disk store on a 40 MiB filesystem" -- "$B" check tags -v refcount -p ntags=4 -p submitters=3 -p rounds=3 \
    --no-reduce -q --store disk --disk-dir "$T/small" --prop no-null-deref
  contains "$T/out" "bfs search: disk space limit reached" "a small filesystem: the stop says why"
  states=$(sed -n 's/^  \([0-9]*\) states,.*/\1/p' "$T/out")
  if [ "${states:-0}" -gt 100000 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: 40 MiB explored only ${states:-0} states"; fi
  umount "$T/small"
else
  echo "note: not root or no tmpfs: the small-filesystem run is skipped"
fi
# --dot: the state graph, with the counterexample drawn on it.
expect 1 "check --dot" -- "$B" check tags -v v4.11 -q --prop no-null-deref --dot "$T/g.dot"
contains "$T/out" "state graph (" "check --dot says what it wrote"
contains "$T/g.dot" "digraph" "--dot writes DOT"
contains "$T/g.dot" "no-null-deref: violated" "--dot marks where the counterexample ends"
contains "$T/g.dot" 'color="red", penwidth=2];' "--dot draws the counterexample's path"
expect 1 "check --dot, a lasso" -- "$B" check workqueue -v before -q --prop all-work-runs --dot "$T/lasso.dot"
contains "$T/lasso.dot" "all-work-runs: " "--dot marks a progress counterexample"
contains "$T/lasso.dot" 'color="blue"' "--dot draws a lasso's loop"
if command -v dot >/dev/null; then
  expect 0 "Graphviz renders --dot" -- dot -Tsvg -o "$T/g.svg" "$T/g.dot"
fi
expect 2 "--dot above its limit" -- "$B" check tags -v refcount -q -p ntags=4 -p submitters=3 -p rounds=2 --dot "$T/big.dot"
contains "$T/out" "fn-sees-owner          holds" "--dot above its limit still prints the verdicts"
contains "$T/err" "more than 2000 states" "--dot above its limit says why"
expect 2 "--dot-limit 0" -- "$B" check tags -v refcount --dot "$T/x.dot" --dot-limit 0; one_line_error "--dot-limit 0"
expect 2 "--dot into no directory" -- "$B" check tags -v refcount --dot "$T/nodir/x.dot"; one_line_error "--dot into no directory"
expect 2 "missing trace" -- "$B" replay "$T/nope.json"; one_line_error "missing trace"
printf 'not json' >"$T/bad.json"
expect 2 "not json" -- "$B" replay "$T/bad.json"; one_line_error "not json"
printf '{"format":"blkmc-trace-1","model":"tags","variant":"refcount","property":"deadlock","steps":[{"actor":"x","action":"alloc"}]}' >"$T/bad2.json"
expect 2 "wrong type" -- "$B" replay "$T/bad2.json"; one_line_error "wrong type"
head -c 300 "$SRC/counterexamples/tags/tags-v4.11-no-null-deref.json" >"$T/trunc.json"
expect 2 "truncated" -- "$B" replay "$T/trunc.json"; one_line_error "truncated"
sed 's/"variant": "v4.11"/"variant": "refcount"/' "$SRC/counterexamples/tags/tags-v4.11-no-null-deref.json" >"$T/other.json"
expect 4 "trace of another variant" -- "$B" replay "$T/other.json"; one_line_error "trace of another variant"
expect 2 "bad suite line" -- bash -c "echo 'check tags' | '$B' suite -"

# NAME<=K bounds only maximize properties (no registered model has one yet;
# tests/sched_props_test.cpp covers them on toy models): one-line errors.
expect 2 "bound on an invariant" -- "$B" check tags -v refcount --prop 'fn-sees-owner<=3'; one_line_error "bound on an invariant"
contains "$T/err" "only to maximize properties" "bound on an invariant says why"
expect 2 "bound on an unknown property" -- "$B" check tags -v refcount --prop 'nope<=3'; one_line_error "bound on an unknown property"
expect 2 "bound without a name" -- "$B" check tags -v refcount --prop '<=3'; one_line_error "bound without a name"
expect 2 "bound in compare" -- "$B" compare tags --before v4.11 --after refcount --prop 'deadlock<=1'; one_line_error "bound in compare"
sed 's/"property": "no-null-deref"/"property": "no-null-deref<=1"/' "$SRC/counterexamples/tags/tags-v4.11-no-null-deref.json" >"$T/bound.json"
expect 2 "bound in a trace" -- "$B" replay "$T/bound.json"; one_line_error "bound in a trace"
expect 2 "bound in --from-trace" -- "$B" check --from-trace "$T/bound.json" -q; one_line_error "bound in --from-trace"
python3 - "$SRC/counterexamples/tags/tags-v4.11-no-null-deref.json" "$T/value.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); j["value"] = 3; json.dump(j, open(sys.argv[2], "w"))
PY
expect 2 "value in an invariant trace" -- "$B" replay "$T/value.json"; one_line_error "value in an invariant trace"
expect 2 "integer EXPECTED on an invariant" -- bash -c "echo 'check tags refcount - fn-sees-owner 3' | '$B' suite -"; one_line_error "integer EXPECTED on an invariant"
contains "$T/err" "suite:1: an integer EXPECTED needs a maximize property" "integer EXPECTED says why"
expect 2 "unknown EXPECTED" -- bash -c "echo 'check tags refcount - fn-sees-owner holdz' | '$B' suite -"; one_line_error "unknown EXPECTED"
expect 0 "list --json kinds" -- "$B" list --json
python3 - "$T/out" <<'PY' && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: list --json kinds"; }
import json, sys
kinds = {p["kind"] for m in json.load(open(sys.argv[1])) for p in m["properties"]}
assert kinds <= {"invariant", "deadlock", "progress", "maximize", "starvation"}, kinds
assert {"invariant", "deadlock"} <= kinds, kinds
PY

# simulate: one schedule, deterministic per seed, figures as text and JSON
expect 0 "simulate finite" -- "$B" simulate deadline --variant v6.18 -p workload=10 -p clock=1 -q
contains "$T/out" "finished after" "simulate ends when every request completed"
contains "$T/out" "dispatch order: writer.0" "simulate prints the dispatch order"
contains "$T/out" "p50" "simulate prints latency percentiles"
expect 0 "simulate seed 7 a" -- "$B" simulate deadline --variant v6.18 -p workload=13 -p clock=1 --seed 7 --ticks 500 --json -q
cp "$T/out" "$T/sim7a"
expect 0 "simulate seed 7 b" -- "$B" simulate deadline --variant v6.18 -p workload=13 -p clock=1 --seed 7 --ticks 500 --json -q
if cmp -s <(grep -v '"seconds"' "$T/sim7a") <(grep -v '"seconds"' "$T/out"); then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: simulate is not deterministic per seed"; fi
contains "$T/out" '"end": "tick limit"' "simulate stops at --ticks"
contains "$T/out" '"ticks": 500' "simulate counts ticks"
# Options that would be taken silently: a seed out of range or negative
# (CLI11 wraps it), the same parameter or property twice, a diff option
# that only --reach reads, an export target that names nothing.
for seed in -1 '' 18446744073709551616 0x10; do
  expect 2 "simulate --seed '$seed'" -- "$B" simulate deadline --variant v6.18 --seed "$seed"
  one_line_error "simulate --seed '$seed'"
done
expect 0 "simulate --seed 18446744073709551615" -- "$B" simulate deadline --variant v6.18 --seed 18446744073709551615 -q
expect 2 "the same parameter twice" -- "$B" check tags -v refcount -p ntags=2 -p ntags=3 -q
one_line_error "the same parameter twice"
expect 2 "the same property twice" -- "$B" check tags -v refcount --prop fn-sees-owner --prop fn-sees-owner -q
one_line_error "the same property twice"
expect 2 "diff --max-states without --reach" -- "$B" diff deadline --from v6.18 --to head-request --max-states 5
one_line_error "diff --max-states without --reach"
for target in '' ' ' $'a\nb'; do
  expect 2 "export --target '$target'" -- "$B" export --fio "$T/x.fio" --workload gated-write --target "$target"
  one_line_error "export --target"
  [ ! -e "$T/x.fio" ] || { fail=$((fail + 1)); echo "FAIL: export --target '$target' wrote a job"; }
done
# A process named global, globalx or a]b;$../x: fio reads one job per
# process, each with its own iolog (where fio is installed).
printf 'device depth=2\nproc global dir=R sync=1 reqs=0,1\nproc globalx dir=R sync=1 reqs=3\nproc a]b;$../x dir=R sync=1 reqs=5\n' >"$T/names.wl"
expect 0 "export --fio of odd process names" -- "$B" export --fio "$T/names.wl" -o "$T/names.fio"
if command -v fio >/dev/null; then
  fio --showcmd "$T/names.fio" >"$T/cmd" 2>&1
  if [ "$(tr ' ' '\n' <"$T/cmd" | grep -c '^--name=')" = 3 ] && [ "$(tr ' ' '\n' <"$T/cmd" | grep -c '^--read_iolog=')" = 3 ] &&
    fio --parse-only "$T/names.fio" >/dev/null 2>&1; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: fio reads one job per process"; cat "$T/cmd"; fi
else
  echo "note: fio is not installed: the exported job is not parsed"
fi
# A name of 100 KB or with a newline: one short line of error, the name cut.
long=$(head -c 100000 /dev/zero | tr '\0' x)
expect 2 "a 100 KB variant name" -- "$B" check tags -v "$long"
one_line_error "a 100 KB variant name"
[ "$(wc -c <"$T/err")" -lt 400 ] && grep -q "(100000 bytes)" "$T/err" && pass=$((pass + 1)) ||
  { fail=$((fail + 1)); echo "FAIL: a 100 KB name is not cut in the error ($(wc -c <"$T/err") bytes)"; }
expect 2 "a model name with a newline" -- "$B" check $'tags\nx' -v refcount
one_line_error "a model name with a newline"
# A trace's "search" is bfs or dfs (absent: either); anything else is malformed.
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); j['search']='BFS'; json.dump(j,open(sys.argv[2],'w'))" \
  "$SRC/counterexamples/tags/tags-null-check-fn-sees-owner.json" "$T/bad-search.json"
expect 2 "a trace searched 'BFS'" -- "$B" replay "$T/bad-search.json"
one_line_error "a trace searched 'BFS'"
expect 2 "check --from-trace of a trace searched 'BFS'" -- "$B" check --from-trace "$T/bad-search.json" -q
expect 0 "simulate seed 8" -- "$B" simulate deadline --variant v6.18 -p workload=13 -p clock=1 --seed 8 --ticks 500 --json -q
if cmp -s <(grep -v '"seconds"' "$T/sim7a") <(grep -v '"seconds"' "$T/out"); then
  fail=$((fail + 1)); echo "FAIL: simulate: seeds 7 and 8 gave the same run"; else pass=$((pass + 1)); fi
expect 0 "simulate steps" -- "$B" simulate deadline --variant v6.18 -p workload=4 --first --steps 100 -q
contains "$T/out" "first enabled step: step limit after 100 steps" "simulate --first --steps"
expect 0 "simulate other model" -- "$B" simulate tags --variant v4.11 --first -q
contains "$T/out" "finished after" "simulate runs models without figures"
expect 1 "simulate deadlock" -- "$B" simulate deadline --variant prio-5.16 -p workload=5 --first -q
contains "$T/out" "deadlock after" "simulate reports a deadlock"
expect 2 "simulate unknown variant" -- "$B" simulate deadline --variant v9 -q; one_line_error "simulate unknown variant"
expect 2 "simulate bad param" -- "$B" simulate deadline --variant v6.18 -p workload=99 -q; one_line_error "simulate bad param"
expect 2 "simulate zero steps" -- "$B" simulate deadline --variant v6.18 --steps 0 -q; one_line_error "simulate zero steps"
expect 2 "simulate ticks without clock" -- "$B" simulate deadline --variant v6.18 --ticks 10 -q; one_line_error "simulate ticks without clock"
expect 2 "simulate ticks untimed model" -- "$B" simulate tags --variant v4.11 --ticks 10 -q; one_line_error "simulate ticks untimed model"
expect 2 "simulate seed and first" -- "$B" simulate deadline --variant v6.18 --seed 3 --first -q; one_line_error "simulate seed and first"

# diff: decision functions of two variants compared by Z3
expect 1 "diff differ" -- "$B" diff bfq --from v4.13 --to refactor --function may_idle
contains "$T/out" "DIFFER" "diff reports a difference"
contains "$T/out" "bfqd->bfq_slice_idle == 0" "diff names the differing inputs by their kernel expressions"
expect 1 "diff json names" -- "$B" diff bfq --from v4.13 --to refactor --function may_idle --json
contains "$T/out" '"kernel": "bfqd->strict_guarantees"' "diff --json gives each input's kernel expression"
contains "$T/out" '"when_kernel"' "diff --json gives the cubes in kernel expressions"
contains "$T/out" '"si0"' "diff --json keeps the short names"
expect 0 "diff equivalent" -- "$B" diff bfq --from flash-boost --to better-to-idle
contains "$T/out" "EQUIVALENT for all inputs" "diff proves equivalence"
expect 0 "diff json" -- "$B" diff bfq --from flash-boost --to better-to-idle --function must_idle --json
contains "$T/out" '"equivalent": true' "diff --json"
expect 1 "diff cfq ints" -- "$B" diff cfq --from deep-fix-v1 --to deep-fix-v2 --function fast_sample
contains "$T/out" "(jiffies - cfqq->seeky_dispatch_start) >= 1 & (jiffies - cfqq->seeky_dispatch_start) < cfqq->seeky_dispatched" "diff names integer input classes"
contains "$T/out" "e.g. (jiffies - cfqq->seeky_dispatch_start) = 1, cfqq->seeky_dispatched = 2" "diff gives a minimised witness"
expect 1 "diff deadline" -- "$B" diff deadline --from v6.18 --to head-request --function dispatch_choice
contains "$T/out" "v6.18 decides READ fifo head and head-request decides READ lowest sector" "diff names the outcomes"
expect 0 "diff deadline 5.16" -- "$B" diff deadline --from v6.18 --to prio-5.16 --function dispatch_choice --json
contains "$T/out" '"equivalent": true' "diff proves 5.16's choice equal"
expect 2 "diff unknown model" -- "$B" diff tags --from v4.11 --to refcount; one_line_error "diff unknown model"
expect 1 "diff inflight counters" -- "$B" diff inflight --from percpu --to 7be835694dae
contains "$T/out" "rq->part->partno != 0 & part->partno == 0" "diff inflight names 7be835694dae's part0 change"
expect 2 "diff inflight across families" -- "$B" diff inflight --from percpu --to b0d97557ebfc; one_line_error "diff inflight across families"
expect 2 "diff unknown variant" -- "$B" diff bfq --from v9 --to refactor; one_line_error "diff unknown variant"
expect 2 "diff unknown function" -- "$B" diff bfq --from v4.13 --to refactor --function nope; one_line_error "diff unknown function"
# --reach: the explorer's shortest trace to a differing decision (shadow property), replayable
expect 1 "diff --reach" -- "$B" diff deadline --from head-request --to v6.18 --function dispatch_choice --reach --trace-out "$T/reach.json"
contains "$T/out" "reaches a difference in 9 steps" "diff --reach finds a trace"
contains "$T/out" "shadow head-request would take" "diff --reach shows the differing decision"
contains "$T/out" "trace written to" "diff --reach writes the trace"
expect 0 "diff --reach trace replays" -- "$B" replay "$T/reach.json"
contains "$T/out" "reproduced: same-choice is violated" "diff --reach trace reproduces"
expect 1 "diff --reach one workload" -- "$B" diff cfq --from deep-fix-v1 --to deep-fix-v2 --function fast_sample --reach -p workload=3 --json
contains "$T/out" '"found": false' "diff --reach never claims an unreached difference"
expect 0 "diff --reach equivalent" -- "$B" diff deadline --from v6.18 --to prio-5.16 --function dispatch_choice --reach
contains "$T/out" "reach: not run (the two variants decide the same" "diff --reach runs no search for an equivalent pair"
expect 2 "diff --reach bad max-states" -- "$B" diff deadline --from head-request --to v6.18 --reach --max-states 0; one_line_error "diff --reach bad max-states"

# prove: k-induction over the inflight model's steps (tags is covered by prove_test)
expect 0 "prove inflight proved" -- "$B" prove inflight -v percpu -p submitters=6 -p cpus=4 --prop quiescent-exact-part
contains "$T/out" "proved by k-induction with k = 1, lemmas well-formed, counters-sum, quiescent-sum" "prove inflight names k and lemmas"
expect 1 "prove inflight violated" -- "$B" prove inflight -v percpu --prop never-negative --trace-out "$T/neg.json"
contains "$T/out" "VIOLATED: a path of 5 steps" "prove inflight finds the shortest path"
expect 0 "prove inflight trace replays" -- "$B" replay "$T/neg.json"
contains "$T/out" "reproduced: never-negative is violated" "prove inflight trace reproduces"
expect 3 "prove inflight without lemmas" -- "$B" prove inflight -v legacy-atomic --prop quiescent-exact-part --no-lemmas --k-max 1
contains "$T/out" "counterexample to induction" "prove inflight prints the CTI"
contains "$T/out" "s0 is NOT reachable in the explorer" "prove inflight says whether the CTI is reachable"
expect 2 "prove inflight target beyond parts" -- "$B" prove inflight -v percpu -p target=5; one_line_error "prove inflight target beyond parts"
expect 2 "prove inflight absurd submitters" -- "$B" prove inflight -v percpu -p submitters=100000; one_line_error "prove inflight absurd submitters"
expect 2 "prove model without symbolic semantics" -- "$B" prove sbitmap -v c854ab5773be; one_line_error "prove sbitmap"
expect 2 "diff --trace-out without --reach" -- "$B" diff deadline --from head-request --to v6.18 --trace-out "$T/x.json"; one_line_error "diff --trace-out without --reach"

# Named parameter values: -p workload=NAME and -p shadow=VARIANT|none are the
# integers they name (the trace is byte-identical); unknown names are one line.
expect 1 "workload by name" -- "$B" check deadline -v prio-5.16 -p workload=passthrough-head --bfs -q --prop deadlock --trace-out "$T/wn.json"
expect 1 "workload by number" -- "$B" check deadline -v prio-5.16 -p workload=5 --bfs -q --prop deadlock --trace-out "$T/wi.json"
cmp -s "$T/wn.json" "$T/wi.json" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: workload=NAME trace differs from workload=N"; }
expect 1 "shadow by name" -- "$B" check deadline -v v6.18 -p workload=seed002-expiry -p clock=1 -p shadow=head-request --bfs -q --prop same-choice
expect 0 "shadow=none" -- "$B" check deadline -v v6.18 -p workload=seed002-expiry -p clock=1 -p shadow=none --bfs -q --prop same-choice
expect 2 "unknown workload name" -- "$B" check deadline -v v6.18 -p workload=nope; one_line_error "unknown workload name"
contains "$T/err" "no value named 'nope' (valid: gated-write, stream-write" "unknown workload lists the names"
expect 2 "unknown shadow name" -- "$B" simulate bfq -v v4.13 -p shadow=nope; one_line_error "unknown shadow name"
expect 2 "name for an unnamed parameter" -- "$B" check tags -v refcount -p ntags=two; one_line_error "name for an unnamed parameter"

printf '{"format":"blkmc-trace-1","model":"tags","variant":"v4.11","property":"deadlock","steps":[],"value":1e999}' >"$T/e999.json"
expect 2 "a trace with a number out of range" -- "$B" replay "$T/e999.json"; one_line_error "a trace with a number out of range"

# A user's own workload file: --workload FILE.wl and -p workload=FILE.wl in
# check, simulate, compare and diff --reach; the trace carries the file's
# text, so it replays and reruns after the file is gone; a bad line is one
# line naming the file and the line.
cat >"$T/mine.wl" <<'WL'
# mine: a writer behind two blockers, then a stream of readers
device depth=1 slot=1
proc blocker dir=W reqs=200,201
gate
proc writer dir=W sync=0 reqs=100
proc reader dir=R sync=0 stream=6 start=0 stride=1 size=1
track writer:0
fair reader writer
WL
expect 0 "check --workload FILE" -- "$B" check deadline -v v6.18 --workload "$T/mine.wl" --prop max-wait --trace-out "$T/mine.json"
contains "$T/out" "workload=mine.wl," "the header names the user's workload"
contains "$T/out" "max-wait               max = 6 (trace 24 steps)" "user workload: the maximum the search found"
contains "$T/out" "shadow=none" "the header names shadow values"
expect 0 "check -p workload=FILE" -- "$B" check deadline -v v6.18 -p workload="$T/mine.wl" --prop max-wait -q --json
contains "$T/out" '"value": 6' "-p workload=FILE gives the same maximum"
python3 -c "import json,sys; t=json.load(open(sys.argv[1])); assert t['param_files']['workload']['name']=='mine.wl' and 'proc writer' in t['param_files']['workload']['text']" "$T/mine.json" \
  && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: the trace does not carry the workload's text"; }
mv "$T/mine.wl" "$T/mine.moved"
expect 0 "replay a user-workload trace without the file" -- "$B" replay "$T/mine.json"
contains "$T/out" "workload=mine.wl" "replay names the carried workload"
expect 0 "check --from-trace without the file" -- "$B" check --from-trace "$T/mine.json" -q
contains "$T/out" "max = 6" "--from-trace reruns the carried workload"
mv "$T/mine.moved" "$T/mine.wl"
expect 0 "simulate --workload FILE" -- "$B" simulate deadline -v v6.18 --workload "$T/mine.wl" --first -q
contains "$T/out" "workload=mine.wl" "simulate names the user's workload"
expect 0 "compare --workload FILE" -- "$B" compare deadline --before prio-5.14 --after v6.18 --workload "$T/mine.wl" --prop max-wait
contains "$T/out" "0 verdict(s) changed" "compare on a user's workload"
expect 1 "diff --reach --workload FILE" -- "$B" diff deadline --from head-request --to v6.18 --reach --workload "$T/mine.wl"
contains "$T/out" "in 1 workload(s).*: mine.wl (" "diff --reach searches only the user's workload"
printf 'device depth=1\nproc a dir=X reqs=1\n' >"$T/badline.wl"
expect 2 "workload file with a bad line" -- "$B" check deadline -v v6.18 --workload "$T/badline.wl"; one_line_error "workload file with a bad line"
contains "$T/err" "badline.wl line 2: dir: 'X' is not R or W" "the error names the file, line and problem"
expect 2 "missing workload file" -- "$B" simulate deadline -v v6.18 --workload "$T/nope.wl"; one_line_error "missing workload file"
expect 2 "workload file is a directory" -- "$B" check deadline -v v6.18 -p workload="$T/"; one_line_error "workload file is a directory"
expect 2 "--workload with -p workload=" -- "$B" check deadline -v v6.18 --workload gated-write -p workload=1; one_line_error "--workload with -p workload="
expect 2 "--workload on a model without workloads" -- "$B" check tags -v refcount --workload gated-write; one_line_error "--workload on tags"
expect 2 "export: source and --workload" -- "$B" export gated-write --workload gated-write --fio -o "$T/j.fio"; one_line_error "export: source and --workload"
expect 0 "export --workload FILE" -- "$B" export --workload "$T/mine.wl" --fio -o "$T/mine.fio"
contains "$T/mine.fio" "mine" "export --workload writes the user's jobs"
python3 - "$T/mine.json" "$T/nested.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1])); t['param_files']['nosuch'] = {'name': 'x', 'text': 'y'}
json.dump(t, open(sys.argv[2], 'w'))
PY
expect 2 "trace: param_files for a parameter it has no value of" -- "$B" replay "$T/nested.json"; one_line_error "trace: stray param_files"

# report: one self-contained HTML page per trace. Its SVG charts must be
# well-formed XML, nothing may load from the network, and the marks must
# be where the trace puts them.
svg_ok() {  # svg_ok FILE: every <svg>...</svg> parses as XML; no remote src/href
  python3 - "$1" <<'PY'
import re, sys, xml.etree.ElementTree as ET
html = open(sys.argv[1], encoding="utf-8").read()
svgs = re.findall(r"<svg .*?</svg>", html, re.S)
assert svgs, "no svg"
for s in svgs:
    ET.fromstring(s)
assert not re.search(r'(src|href)="(https?:)?//', html), "remote reference"
assert html.count("<details id=") >= 2
PY
}
expect 0 "report of a maximize trace" -- "$B" report "$SRC/counterexamples/deadline/deadline-prio-5.14-gated-write-max-wait-le32.json" -o "$T/r1.html"
svg_ok "$T/r1.html" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: report r1 is not well-formed"; }
contains "$T/r1.html" "Dispatch timeline" "a scheduler trace has a dispatch timeline"
contains "$T/r1.html" 'class="qw tracked"' "the tracked request's wait is shaded"
contains "$T/r1.html" 'class="switch"' "direction switches are drawn"
contains "$T/r1.html" 'class="bad"' "the violating step is marked"
contains "$T/r1.html" "reproduced: max-wait&lt;=32 is violated" "the verdict is the replay's"
contains "$T/r1.html" "blkmc check --from-trace" "the page says how to reproduce it"
contains "$T/r1.html" "requests\[writer.0\]" "requests are keyed by name in the state tables"
expect 0 "report of a starvation lasso" -- "$B" report "$SRC/counterexamples/deadline/deadline-prio-5.14-rt-be-cyclic-starvation.json" -o "$T/r2.html"
svg_ok "$T/r2.html" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: report r2 is not well-formed"; }
contains "$T/r2.html" 'class="stuck"' "the lasso's stuck point is drawn"
contains "$T/r2.html" "repeat forever" "the lasso's loop is drawn"
expect 0 "report of a tags trace" -- "$B" report "$SRC/counterexamples/tags/tags-v4.11-no-null-deref.json" -o "$T/r3.html"
svg_ok "$T/r3.html" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: report r3 is not well-formed"; }
if grep -q "Dispatch timeline" "$T/r3.html"; then fail=$((fail + 1)); echo "FAIL: a tags trace has no timeline"; else pass=$((pass + 1)); fi
contains "$T/r3.html" '<tr class="chg">' "changed variables are highlighted"
expect 1 "check --report" -- "$B" check deadline -v prio-5.16 --workload passthrough-head --prop deadlock --prop progress --report "$T/ck.html" -q
contains "$T/out" "report for deadlock written to $T/ck-deadlock.html" "check --report names a page per violation"
svg_ok "$T/ck-progress.html" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: check --report page"; }
contains "$T/ck-deadlock.html" "blkmc check deadline -v prio-5.16 --workload passthrough-head" "check --report shows the command"
expect 1 "diff --reach --report" -- "$B" diff deadline --from head-request --to v6.18 --function dispatch_choice --reach --report "$T/dr.html"
contains "$T/out" "report written to $T/dr.html" "diff --reach --report says where"
contains "$T/dr.html" "rerun: \|blkmc check deadline -v v6.18 -p shadow=head-request" "diff's page shows the rerun command"
expect 2 "report of a malformed trace" -- "$B" report "$T/badline.wl" -o "$T/x.html"; one_line_error "report of a malformed trace"
expect 2 "report into a missing directory" -- "$B" report "$T/mine.json" -o "$T/nodir/x.html"; one_line_error "report into a missing directory"
expect 2 "check --report into a missing directory" -- "$B" check deadline -v v6.18 --report "$T/nodir/x.html"; one_line_error "check --report into a missing directory"
expect 2 "diff --report without --reach" -- "$B" diff deadline --from head-request --to v6.18 --report "$T/x.html"; one_line_error "diff --report without --reach"
[ ! -e "$T/x.html" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: a refused report left a file"; }

# simulate --report: the run's figures drawn (latency CDF, service over
# time, seek distance), the same run as the text (same seed, same figures).
expect 0 "simulate --report" -- "$B" simulate deadline -v v6.18 -p workload=13 -p clock=1 --seed 7 --ticks 500 --report "$T/sim.html" -q
svg_ok_sim() { python3 - "$1" "$2" <<'PY'
import re, sys, xml.etree.ElementTree as ET
html = open(sys.argv[1], encoding="utf-8").read()
svgs = re.findall(r"<svg .*?</svg>", html, re.S)
assert len(svgs) == int(sys.argv[2]), len(svgs)
for s in svgs: ET.fromstring(s)
assert not re.search(r'(src|href)="(https?:)?//', html)
PY
}
svg_ok_sim "$T/sim.html" 3 && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: simulate --report charts"; }
contains "$T/sim.html" "Latency distribution" "simulate --report draws the latency CDF"
contains "$T/sim.html" "job3 (26)" "the CDF counts each process's completions"
contains "$T/sim.html" "140 completions" "the page holds the text figures of the same run"
contains "$T/out" "report written to $T/sim.html" "simulate says where the page went"
expect 0 "simulate --report without an observer" -- "$B" simulate tags -v refcount --report "$T/simt.html" -q
contains "$T/simt.html" "nothing to draw" "a model without figures says so"
expect 2 "simulate --report into a missing directory" -- "$B" simulate deadline -v v6.18 --report "$T/nodir/s.html"; one_line_error "simulate --report into a missing directory"

# Suite files: a row names a run once, then PROPERTY EXPECTED pairs; indented
# lines continue it; directories expand to their *.suite files, sorted.
mkdir -p "$T/suites/b" "$T/suites/a"
cat >"$T/suites/b/tags.suite" <<'SUITE'
# one run, three expectations, the last on a continuation line
check tags v4.11 - no-null-deref violated  deadlock holds
    fn-sees-owner violated   # a note
check deadline prio-5.16 workload=passthrough-head deadlock violated
replay counterexamples/tags/tags-v4.11-no-null-deref.json
SUITE
printf 'check tags refcount ntags=3 deadlock holds\n' >"$T/suites/a/x.suite"
printf 'not a suite\n' >"$T/suites/ignored.txt"
expect 0 "suite directory" -- bash -c "cd '$SRC' && '$B' suite '$T/suites'"
contains "$T/out" "6 rows, 6 passed, 0 failed (5 lines in 2 files)" "suite directory counts expectations"
expect 0 "suite --only replay" -- bash -c "cd '$SRC' && '$B' suite --only replay '$T/suites'"
contains "$T/out" "1 rows, 1 passed, 0 failed, 5 of other kinds not run (--only)" "suite --only runs one kind"
if grep -q "^tags\|^deadline" "$T/out"; then fail=$((fail + 1)); echo "FAIL: suite --only replay ran check rows"; else pass=$((pass + 1)); fi
expect 2 "suite --only an unknown kind" -- "$B" suite --only check,proof "$T/suites"; one_line_error "suite --only an unknown kind"
expect 2 "suite --only leaves no row" -- "$B" suite --only prove "$T/suites"; one_line_error "suite --only leaves no row"
contains "$T/err" "no rows of the kinds --only names" "suite --only with nothing to run says why"
expect 0 "suite --expand" -- "$B" suite --expand "$T/suites"
if [ "$(head -1 "$T/out")" = "check tags refcount ntags=3,submitters=2,rounds=1,pool=0 deadlock holds" ] &&
   grep -q "^check tags v4.11 ntags=2,submitters=2,rounds=1,pool=0 fn-sees-owner violated$" "$T/out" &&
   grep -q "^check deadline prio-5.16 workload=5,clock=0,.*,shadow=-1 deadlock violated$" "$T/out" &&
   [ "$(wc -l <"$T/out")" = 6 ]; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: suite --expand"; cat "$T/out"; fi
printf '# only a comment\n' >"$T/empty.suite"
expect 2 "suite: a file without rows" -- "$B" suite "$T/empty.suite"; one_line_error "suite: a file without rows"
contains "$T/err" "no rows" "an empty suite says it checks nothing"
printf 'check tags refcount - deadlock holds\ncheck deadline v6.18 workload=nope deadlock holds\n' >"$T/bad1.suite"
expect 2 "suite: unknown workload name" -- "$B" suite "$T/bad1.suite"; one_line_error "suite: unknown workload name"
contains "$T/err" "bad1.suite:2: parameter workload: no value named 'nope'" "suite: unknown workload names file and line"
printf 'check tags refcount -\n    deadlock holds fn-sees-owner\n' >"$T/bad2.suite"
expect 2 "suite: PROPERTY without EXPECTED" -- "$B" suite "$T/bad2.suite"; one_line_error "suite: PROPERTY without EXPECTED"
contains "$T/err" "bad2.suite:2: 'fn-sees-owner' has no EXPECTED after it" "suite: dangling PROPERTY names its line"
printf '  deadlock holds\n' >"$T/bad3.suite"
expect 2 "suite: continuation without a row" -- "$B" suite "$T/bad3.suite"; one_line_error "suite: continuation without a row"
printf '# ok\nchek tags refcount - deadlock holds\n' >"$T/bad4.suite"
expect 2 "suite: unknown row kind" -- "$B" suite "$T/bad4.suite"; one_line_error "suite: unknown row kind"
contains "$T/err" "bad4.suite:2: expected 'check MODEL" "suite: unknown row kind names file and line"
printf 'check tags nope - deadlock holds\n' >"$T/bad5.suite"
expect 2 "suite: unknown variant" -- "$B" suite "$T/bad5.suite"; one_line_error "suite: unknown variant"
expect 2 "suite: missing file" -- "$B" suite "$T/nope.suite"; one_line_error "suite: missing file"
contains "$T/err" "cannot open suite file" "suite: missing file says so"
mkdir -p "$T/empty"
expect 2 "suite: directory without suites" -- "$B" suite "$T/empty"; one_line_error "suite: directory without suites"
# Every row kind is checked before any row runs: a bad diff, prove or replay
# row is a usage error, as a bad check row is.
printf 'check tags refcount - deadlock holds\ndiff bfq v4.13 refactor no_such_fn differ\n' >"$T/bad6.suite"
expect 2 "suite: unknown decision function" -- "$B" suite "$T/bad6.suite"; one_line_error "suite: unknown decision function"
contains "$T/err" "bad6.suite:2: no decision function 'no_such_fn' for bfq" "suite: unknown function names file and line"
printf 'diff bfq v4.13 nope may_idle differ\n' >"$T/bad7.suite"
expect 2 "suite: diff row with an unknown variant" -- "$B" suite "$T/bad7.suite"; one_line_error "suite: diff row with an unknown variant"
printf 'prove tags tag-match ntags=4 no-such-prop proved\n' >"$T/bad8.suite"
expect 2 "suite: prove row with an unknown property" -- "$B" suite "$T/bad8.suite"; one_line_error "suite: prove row with an unknown property"
printf 'replay %s/nope.json\n' "$T" >"$T/bad9.suite"
expect 2 "suite: replay of a missing trace" -- "$B" suite "$T/bad9.suite"; one_line_error "suite: replay of a missing trace"

# Ctrl-C: prove and diff stop at once, say so, and exit 3 (z3 catches a
# SIGINT during a check; the interrupt handler one between checks).
# The signal is sent only once the process catches SIGINT (SigCgt in
# /proc/PID/status, bit 1), so a slow start on a loaded machine (a
# sanitizer build) does not meet the default action instead.
catches_sigint() {  # catches_sigint PID: waits up to 20 s
  local mask i
  for ((i = 0; i < 400; i++)); do
    [ -d "/proc/$1" ] || return 1
    mask=$(awk '/^SigCgt:/ {print $2}' "/proc/$1/status" 2>/dev/null)
    [ -n "$mask" ] && (((16#$mask >> 1) & 1)) && return 0
    sleep 0.05
  done
  return 1
}
interrupted() {  # interrupted DESCRIPTION SECONDS -- command...
  local what=$1 after=$2
  shift 3
  "$@" >"$T/out" 2>"$T/err" &
  local pid=$!
  catches_sigint "$pid"
  sleep "$after"
  kill -INT "$pid"
  wait "$pid"
  local rc=$?
  if [ "$rc" = 3 ] && grep -q "interrupted" "$T/err"; then pass=$((pass + 1)); else
    fail=$((fail + 1))
    echo "FAIL: $what: exit $rc after SIGINT (wanted 3, 'interrupted')"
    head -3 "$T/err"
  fi
}
interrupted "prove, interrupted" 1 -- "$B" prove inflight -v percpu -p parts=3 -p submitters=8 -p rounds=2 \
  -p reads=2 -p whole=1 -p cpus=8
interrupted "diff, interrupted" 0.4 -- "$B" diff bfq --from v4.13 --to refactor
# An interrupted suite keeps the rows it finished, calls the cut ones
# interrupted (not MISMATCH), counts the rest as not run, and exits 3.
(cd "$SRC" && exec "$B" suite model/sched/bfq/bfq.suite) >"$T/out" 2>"$T/err" &
spid=$!
catches_sigint "$spid"
sleep 3
kill -INT "$spid"
wait "$spid"
src=$?
if [ "$src" = 3 ] && grep -q "interrupted: [0-9]* cut short, [0-9]* not run" "$T/out" && ! grep -q MISMATCH "$T/out" &&
  grep -q " 0 failed" "$T/out"; then pass=$((pass + 1)); else
  fail=$((fail + 1))
  echo "FAIL: suite, interrupted: exit $src"
  tail -3 "$T/out"
fi

echo "cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
