#!/bin/sh
# `make demo-timeline`: run the demo (examples/demo/saxpy.c, built as
# `make demo` builds it) with OMPEMU_TIMELINE and leave the timeline in
# BUILDDIR/examples/demo/timeline.json; with chromium installed, also a
# picture of it (timeline.png, drawn by examples/timeline/render.sh).
# Arguments: BUILDDIR SRCDIR.
set -e
builddir=$1 srcdir=$2
clang=${CLANG14:-clang-14}
if ! command -v "$clang" >/dev/null 2>&1; then
  echo "demo-timeline: clang-14 not found (apt-get install clang-14 libomp-14-dev)" >&2
  exit 1
fi
out="$builddir/examples/demo"
mkdir -p "$out"
"$clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -O1 -g \
  "$srcdir/examples/demo/saxpy.c" -o "$out/saxpy"
echo "demo-timeline: OMPEMU_TIMELINE=$out/timeline.json ompemu-run ./saxpy"
OMPEMU_TIMELINE="$out/timeline.json" "$builddir/ompemu-run" "$out/saxpy" >/dev/null
if [ -x "$builddir/tests/timeline/tl_check" ]; then
  "$builddir/tests/timeline/tl_check" "$out/timeline.json" >/dev/null
  echo "demo-timeline: valid trace-event JSON ($(grep -c '"ph":"X"' "$out/timeline.json") slices)"
fi
if command -v "${CHROMIUM:-chromium}" >/dev/null 2>&1; then
  sh "$srcdir/examples/timeline/render.sh" "$out/timeline.json" \
    "$out/timeline.png" "$out/timeline.html"
fi
cat <<MSG
demo-timeline: open $out/timeline.json in https://ui.perfetto.dev
  ("Open trace file") or in chrome://tracing ("Load"); nothing leaves
  your machine: both read the file in the browser.
MSG
