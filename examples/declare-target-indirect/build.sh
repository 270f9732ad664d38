#!/bin/sh
# Build and run the lowered program with gcc and ompemu only.
#   ./build.sh [BUILDDIR]    BUILDDIR: an ompemu build tree (default ../../build)
set -e
cd "$(dirname "$0")"
B=$(cd "${1:-../../build}" && pwd)
S=$(cd ../.. && pwd)
CC=${CC:-cc}
mkdir -p out
$CC -O1 -I"$S/include" -shared -fPIC lowered/device.c lowered/functions.c -o out/device.so
"$B/ompemu-wrap" -o out/wrap.o out/device.so
$CC -O1 -I"$S/include" lowered/host.c lowered/functions.c out/wrap.o \
  -L"$B/.libs" -lomptarget -Wl,-rpath,"$B/.libs" -o out/indirect
OMPEMU_TRACE=${OMPEMU_TRACE:-3} "$B/ompemu-run" out/indirect
