#!/bin/sh
# `make demo`: compile examples/demo/saxpy.c with clang 14 and run it on the
# emulated device through ompemu-run with the event trace on.
# Arguments: BUILDDIR SRCDIR.
set -e
builddir=$1 srcdir=$2
clang=${CLANG14:-clang-14}
if ! command -v "$clang" >/dev/null 2>&1; then
  echo "demo: clang-14 not found (apt-get install clang-14 libomp-14-dev)" >&2
  exit 1
fi
out="$builddir/examples/demo"
mkdir -p "$out"
echo "demo: $clang -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g examples/demo/saxpy.c"
"$clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -O1 -g \
  "$srcdir/examples/demo/saxpy.c" -o "$out/saxpy"
echo "demo: OMPEMU_TRACE=1 ompemu-run ./saxpy"
echo "----------------------------------------------------------------------"
OMPEMU_TRACE=${OMPEMU_TRACE:-1} "$builddir/ompemu-run" "$out/saxpy"
