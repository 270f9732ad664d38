#!/bin/sh
# Build the descriptor example with gcc + ompemu-wrap and run both orders on
# ompemu; with `--llvm14`, also run them on LLVM 14's runtime for contrast.
#   ./build.sh [BUILDDIR] [--llvm14]
set -e
cd "$(dirname "$0")"
B=$(cd "${1:-../../build}" && pwd)
S=$(cd ../.. && pwd)
CC=${CC:-cc}
mkdir -p out
$CC -O1 -I"$S/include" -shared -fPIC device.c -o out/device.so
"$B/ompemu-wrap" -o out/wrap.o out/device.so
$CC -O1 -I"$S/include" host.c device_ids.c out/wrap.o -lgfortran -L"$B/.libs" -lomptarget \
  -Wl,-rpath,"$B/.libs" -o out/descriptor
for order in parent-first member-first; do
  echo "== ompemu, $order"
  OMPEMU_TRACE=${OMPEMU_TRACE:-1} "$B/ompemu-run" out/descriptor $order
done
if [ "${2:-}" = --llvm14 ]; then
  L=/usr/lib/llvm-14/lib
  $CC -O1 -I"$S/include" host.c device_ids.c out/wrap.o -lgfortran -L$L -Wl,--no-as-needed -lomp -lomptarget \
    -Wl,-rpath,$L -o out/descriptor-llvm14
  for order in parent-first member-first; do
    echo "== LLVM 14, $order"
    out/descriptor-llvm14 $order || echo "(exit status $?)"
  done
fi
