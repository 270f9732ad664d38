#!/bin/sh
# Build lowered-hello with gcc + ompemu-wrap and run it on the emu device.
#   ./build.sh BUILDDIR     use a build tree (ompemu-wrap, .libs, ompemu-run)
#   ./build.sh              use the installed ompemu (ompemu-wrap and
#                           ompemu-run on PATH, pkg-config ompemu)
# OMPEMU_TRACE (default 1) is passed through to show what the runtime does;
# OUT (default ./out) is where the files go.
set -e
SRC=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-cc}
OUT=${OUT:-$SRC/out}
mkdir -p "$OUT"
if [ $# -ge 1 ]; then
  B=$(cd "$1" && pwd)
  S=$(cd "$SRC/../.." && pwd)
  WRAP=$B/ompemu-wrap DUMP=$B/ompemu-dump RUN=$B/ompemu-run
  CFLAGS_RT="-I$S/include"
  LIBS_RT="-L$B/.libs -Wl,-rpath,$B/.libs -lomptarget"
else
  WRAP=ompemu-wrap DUMP=ompemu-dump RUN=ompemu-run
  CFLAGS_RT=$(pkg-config --cflags ompemu)
  LIBS_RT=$(pkg-config --libs ompemu)
fi
set -x
# 1. The device image: an ordinary x86-64 shared object.
$CC -O1 $CFLAGS_RT -shared -fPIC -o "$OUT/device.so" "$SRC/device.c"
# 2. The wrapper object: embeds the image, registers it at start-up.
"$WRAP" --target=x86_64-pc-linux-gnu -o "$OUT/wrap.o" --offload-arch=x86-64 "$OUT/device.so"
# 3. The host program, linked with the wrapper object and libomptarget.
$CC -O1 $CFLAGS_RT -o "$OUT/hello" "$SRC/host.c" "$OUT/wrap.o" $LIBS_RT
# 4. What the binary holds, then a run on the emulated device.
"$DUMP" "$OUT/hello"
OMPEMU_TRACE=${OMPEMU_TRACE:-1} "$RUN" "$OUT/hello"
