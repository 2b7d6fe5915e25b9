#!/usr/bin/env bash
# The report pages as a reader sees them: a headless Chromium (Debian's
# chromium-headless-shell, installed by Makefile.verify's deps) loads each
# page from a file, runs its script, and the rendered DOM must hold one
# lifeline per actor of the trace, one event per step, the violating step
# marked (a lasso's stuck line and loop), and, for a scheduler trace, the
# timeline; the console must show no script error. Skips (exit 77) where no
# such browser is installed.
# Usage: report_browser_test.sh BLKMC SOURCE_DIR [SCREENSHOT_DIR]
set -u
B=$1
SRC=$2
SHOTS=${3:-}
browser=$(command -v chromium-headless-shell || command -v chromium || true)
if [ -z "$browser" ]; then
  echo "SKIP: no headless Chromium (apt-get install chromium-headless-shell)"
  exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

# render TRACE NAME: writes $T/NAME.html, its rendered DOM and console log.
render() {
  (cd "$SRC" && "$B" report "counterexamples/$1" -o "$T/$2.html" >/dev/null) ||
    { echo "FAIL: report $1"; fail=$((fail + 1)); return 1; }
  # The browser's own profile and caches go to $T; --no-sandbox: CI runs as root.
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$T/profile" \
    --enable-logging=stderr --v=0 --dump-dom "file://$T/$2.html" >"$T/$2.dom" 2>"$T/$2.log"
}

# check TRACE NAME: the DOM against the trace.
check() {
  python3 - "$1" "$T/$2.dom" "$T/$2.log" <<'PY'
import json, re, sys
t = json.load(open(sys.argv[1]))
dom = open(sys.argv[2], encoding="utf-8").read()
log = open(sys.argv[3], encoding="utf-8", errors="replace").read()
errors = [l for l in log.splitlines() if "CONSOLE" in l and ("Uncaught" in l or "Error" in l)]
assert not errors, errors
msc = re.search(r'<svg[^>]*class="msc".*?</svg>', dom, re.S).group(0)
actors = {s["actor"] for s in t["steps"]}
assert msc.count('class="life"') == len(actors), (msc.count('class="life"'), len(actors))
events = len(re.findall(r'<circle class="ev', msc))
assert events == len(t["steps"]), (events, len(t["steps"]))
if "loop" in t:
    assert 'class="stuck"' in msc or "stuck" not in t, "no stuck line"
    assert "repeat forever" in msc or "stuck forever" in msc, "no loop"
else:
    assert msc.count('class="ev badev"') == 1, "the violating step is not marked"
# Every step's state is on the page, the last one open.
assert dom.count("<details id=\"s") == len(t["steps"]) + 1
assert re.search(r'<details id="s%d"[^>]* open' % len(t["steps"]), dom)
if t["model"] in ("deadline", "bfq", "cfq", "none"):
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="tl"' in dom, "no dispatch timeline"
PY
}

for case in "tags/tags-v4.11-no-null-deref.json race" \
            "deadline/deadline-prio-5.14-gated-write-max-wait-le32.json scheduler" \
            "deadline/deadline-prio-5.14-rt-be-cyclic-starvation.json lasso" \
            "cfq/$(ls "$SRC/counterexamples/cfq" | head -1) cfq"; do
  set -- $case
  trace="$SRC/counterexamples/$1"
  if render "$1" "$2" && check "$trace" "$2"; then pass=$((pass + 1)); else
    fail=$((fail + 1))
    echo "FAIL: $2 ($1) as the browser renders it"
  fi
done

# Screenshots for the docs (make -f Makefile.verify report-shots).
if [ -n "$SHOTS" ]; then
  for n in race lasso; do
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$T/profile" --hide-scrollbars \
      --window-size=1300,1000 --screenshot="$SHOTS/report-$n.png" "file://$T/$n.html" 2>/dev/null
  done
fi

echo "report_browser: $pass passed, $fail failed"
[ "$fail" = 0 ]
