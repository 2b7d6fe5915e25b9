#!/usr/bin/env bash
# The suite as data keeps every expectation of the suite it replaced: the
# Makefile.verify `define SUITE` (1,269 rows, one expectation each) was
# converted to model/**/*.suite, and tests/suite_rows_before.txt holds its
# rows expanded ONCE to the canonical one-per-line form of `blkmc suite
# --expand` (every parameter as an integer). Fails when any of them is lost
# or changed in the expansion of model/; rows added since are only counted.
# Values changed on purpose since: the 32 `simulate bfq` sector figures of
# workloads 21 and 22, when bfqq->next_rq became bfq_choose_req's choice
# (issue 18; the model then serves a queue's requests in the kernel's order).
# Parameters added since with a default that changes nothing: cfq's
# share_while_deep=0 (the long-run share over every run) on every cfq row.
# Usage: suite_rows_test.sh BLKMC SOURCE_DIR
set -euo pipefail
B=$1
SRC=$2
cd "$SRC"
now=$(mktemp)
trap 'rm -f "$now"' EXIT
"$B" suite --expand model/ | LC_ALL=C sort >"$now"
lost=$(LC_ALL=C comm -23 tests/suite_rows_before.txt "$now")
if [ -n "$lost" ]; then
  echo "FAIL: $(printf '%s\n' "$lost" | wc -l) expectations of tests/suite_rows_before.txt are" \
       "missing or changed in model/**/*.suite:"
  printf '%s\n' "$lost" | head -20
  exit 1
fi
echo "suite rows: all $(wc -l <tests/suite_rows_before.txt) expectations kept;" \
     "$(LC_ALL=C comm -13 tests/suite_rows_before.txt "$now" | wc -l) added; $(wc -l <"$now") in all"
