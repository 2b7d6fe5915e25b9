#!/usr/bin/env bash
# The mq-deadline suite as a benchmark: runs the `deadline` rows of
# Makefile.verify (one BFS per variant/parameter set) and prints the states
# explored, the time and states/s per run and in total.
# Usage: BLKMC=build/blkmc bench/deadline-suite.sh   (the suite comes in $SUITE,
# as `make -f Makefile.verify bench-deadline` passes it)
set -euo pipefail
BLKMC=${BLKMC:-build/blkmc}
: "${SUITE:?run through make -f Makefile.verify bench-deadline}"
printf '%s\n' "$SUITE" | grep '^check deadline ' | "$BLKMC" suite - | awk '
  $1 == "deadline" && !seen[$2 " " $3]++ {
    runs++; states += $7; secs += $8
    printf "%-14s %-70s %10d states %8.3f s\n", $2, $3, $7, $8
  }
  END {
    printf "\nmq-deadline suite: %d runs, %d states, %.2f s, %.0f states/s\n",
           runs, states, secs, (secs > 0 ? states / secs : 0)
  }'
