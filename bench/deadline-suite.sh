#!/usr/bin/env bash
# The mq-deadline suite as a benchmark: runs the `check deadline` rows of the
# suite files (one BFS per variant/parameter set) and prints the states
# explored, the time and states/s per run and in total.
# Usage: BLKMC=build/blkmc bench/deadline-suite.sh [SUITE-FILES-OR-DIRS...]
# (default model/, as `make -f Makefile.verify bench-deadline` passes it)
set -euo pipefail
BLKMC=${BLKMC:-build/blkmc}
[ $# -gt 0 ] || set -- model/
# --expand: one canonical row per expectation; the deadline checks among them.
"$BLKMC" suite --expand "$@" | grep '^check deadline ' | "$BLKMC" suite - | awk '
  $1 == "deadline" && !seen[$2 " " $3]++ {
    runs++; states += $7; secs += $8
    printf "%-14s %-70s %10d states %8.3f s\n", $2, $3, $7, $8
  }
  END {
    printf "\nmq-deadline suite: %d runs, %d states, %.2f s, %.0f states/s\n",
           runs, states, secs, (secs > 0 ? states / secs : 0)
  }'
