#!/bin/sh
# render.sh TRACE.json OUT.png [OUT.html]: draw an ompemu timeline with the
# small viewer examples/timeline/timeline.html (the trace inlined, so the
# page needs no network) and screenshot it with headless chromium.  The
# HTML is kept when OUT.html is given: open it in any browser.
set -e
[ $# -ge 2 ] || { echo "usage: render.sh TRACE.json OUT.png [OUT.html]" >&2; exit 2; }
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
trace=$(abs "$1") png=$(abs "$2")
here=$(cd "$(dirname "$0")" && pwd)
html=$(abs "${3:-$(mktemp "${TMPDIR:-/tmp}/ompemu-timeline.XXXXXX.html")}")
# The trace replaces the /*TRACE*/null marker (awk: no limit on its size).
awk -v f="$trace" '
  index($0, "/*TRACE*/null") {
    i = index($0, "/*TRACE*/null")
    printf "%s", substr($0, 1, i - 1)
    while ((getline line < f) > 0) print line
    print substr($0, i + length("/*TRACE*/null"))
    next
  }
  { print }' "$here/timeline.html" >"$html"
chromium=${CHROMIUM:-chromium}
command -v "$chromium" >/dev/null 2>&1 ||
  { echo "render.sh: $chromium not found; open $html in a browser instead" >&2; exit 1; }
# Tall enough for every track (about two rows of slices per thread).
height=${HEIGHT:-$((100 + 45 * $(grep -o '"thread_name"' "$trace" | wc -l)))}
profile=$(mktemp -d "${TMPDIR:-/tmp}/ompemu-chromium.XXXXXX")
"$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking \
  --user-data-dir="$profile" --hide-scrollbars --window-size="${WIDTH:-1400},$height" \
  --screenshot="$png" "file://$html" >/dev/null 2>&1
rm -rf "$profile"
[ -n "${3:-}" ] || rm -f "$html"
[ -s "$png" ] || { echo "render.sh: chromium wrote no $png" >&2; exit 1; }
echo "render.sh: $png"
