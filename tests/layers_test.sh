#!/usr/bin/env bash
# The layers only point down (docs/architecture.md, "Layers"): an include
# from a lower layer into a higher one fails, as does a file outside the
# registry that matches on a model's name, or a raw state offset in model
# code converted to the schema.
set -u
src=${1:?usage: layers_test.sh SOURCE_DIR}
cd "$src" || exit 2
fail=0
# layer -> the folders it may not include from
check() {
  local dir=$1; shift
  local pat
  pat=$(printf '|%s/' "$@"); pat=${pat:1}
  local hits
  hits=$(grep -rnE "#include \"($pat)" "$dir" --include='*.hpp' --include='*.cpp' || true)
  if [[ -n $hits ]]; then
    echo "FAIL: $dir includes from a layer above it:"; echo "$hits"; fail=1
  fi
}
check common model props counterexamples explorer app device cli
check model props counterexamples explorer app device cli
check props counterexamples explorer app device cli
check counterexamples explorer app device cli
check explorer app device cli
check app device cli
# Model names are matched only in the registry.
names='tags|inflight|integrity|workqueue|sbitmap|deadline|bfq|cfq'
hits=$(grep -rnE "(==|!=) *\"($names)\"|\"($names)\" *(==|!=)" app cli device props explorer counterexamples \
         --include='*.hpp' --include='*.cpp' | grep -v '^app/registry\(_kernel\)\?.cpp' || true)
if [[ -n $hits ]]; then
  echo "FAIL: a model name matched outside app/registry.cpp:"; echo "$hits"; fail=1
fi
# Models on the schema write no raw byte offsets (every model file but the
# schema itself, which implements the slots).
for f in $(find model -name '*.hpp' -o -name '*.cpp' | sort); do
  [[ $f == model/schema.hpp || $f == model/schema.cpp ]] && continue
  hits=$(grep -nE '\.b\[' "$f" || true)
  if [[ -n $hits ]]; then echo "FAIL: raw state offset in $f:"; echo "$hits"; fail=1; fi
done
# The searches explore the reduced model (explorer/reduced_model.hpp): no
# loop keys a state itself or expands the model under it, but for the one
# concrete step Search::step_between takes when it rebuilds a path.
loops="explorer/search.hpp explorer/level_search.hpp explorer/resolve_in_memory.hpp explorer/resolve_on_disk.hpp
       explorer/distributed_search.hpp explorer/level_replay.hpp"
hits=$(grep -nE '\.key\(' $loops || true)
if [[ -n $hits ]]; then echo "FAIL: a search keys states itself:"; echo "$hits"; fail=1; fi
hits=$(grep -nE '\bm_\.for_each_successor' $loops | grep -v '^explorer/search.hpp:.*(from, ' || true)
if [[ -n $hits ]]; then echo "FAIL: a search expands the model under the reductions:"; echo "$hits"; fail=1; fi
# A property kind is its check class (explorer/check_*.hpp) and its line in
# explorer/check_kinds.hpp: the checks, the searches, replay and the trace
# renderings ask the kind's class or its kind_info row, never match on it.
kinds="explorer/checks.hpp explorer/search.hpp explorer/level_search.hpp explorer/resolve_in_memory.hpp
       explorer/resolve_on_disk.hpp explorer/distributed_search.hpp app/adapter.hpp app/trace_report.cpp
       counterexamples/render.cpp"
# A file renamed away would pass every grep below unseen.
for f in $loops $kinds; do
  [[ -f $f ]] || { echo "FAIL: tests/layers_test.sh lists $f, which is gone"; fail=1; }
done
hits=$(grep -nE 'PropKind::' $kinds || true)
if [[ -n $hits ]]; then echo "FAIL: a property kind matched outside its check class:"; echo "$hits"; fail=1; fi
((fail)) && exit 1
echo "layers: model/ includes nothing above it; model names only in app/registry.cpp; the searches expand the reduced model; no kind switch outside the check classes"
