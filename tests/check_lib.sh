# Helpers of the end-to-end shell tests (sourced): each check counts into
# pass/fail and prints what it saw when it fails. Needs $T, a scratch dir.
pass=0 fail=0

expect() {  # expect RC DESCRIPTION -- command...
  local want=$1 what=$2
  shift 3
  "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  if [ "$rc" = "$want" ]; then pass=$((pass + 1)); else
    fail=$((fail + 1))
    echo "FAIL: $what: exit $rc, wanted $want"
    head -8 "$T/out" "$T/err"
  fi
}
contains() {  # contains FILE TEXT DESCRIPTION
  if grep -q -- "$2" "$1"; then pass=$((pass + 1)); else
    fail=$((fail + 1))
    echo "FAIL: $3: '$2' not in $1"
    head -8 "$1"
  fi
}
lacks() {  # lacks FILE TEXT DESCRIPTION
  if ! grep -q -- "$2" "$1"; then pass=$((pass + 1)); else
    fail=$((fail + 1))
    echo "FAIL: $3: '$2' in $1"
  fi
}
one_line_error() {  # exactly one line on stderr, nothing on stdout
  if [ "$(wc -l <"$T/err")" = 1 ] && [ ! -s "$T/out" ]; then pass=$((pass + 1)); else
    fail=$((fail + 1))
    echo "FAIL: $1: not a one-line error"
    cat "$T/out" "$T/err"
  fi
}
untimed() {  # a run's output without its timings: the statistics line, "(0.02 s)"
  grep -v "states/s" "$1" | sed -E 's/\([0-9.]+ s\)/(T s)/g'
}
same() {  # same FILE FILE DESCRIPTION: equal but for timings
  if diff <(untimed "$1") <(untimed "$2") >/dev/null; then pass=$((pass + 1)); else
    fail=$((fail + 1))
    echo "FAIL: $3"
    diff <(untimed "$1") <(untimed "$2") | head -10
  fi
}
