#!/bin/sh
# The hand-lowered tests on LLVM 14's own libomptarget and x86_64 plugin
# (a cross-check of the programs and of ompemu-wrap's objects against the
# reference runtime); skipped when libomp-14-dev is not installed.
OMPEMU_LOWERED_RUNTIME=llvm14
export OMPEMU_LOWERED_RUNTIME
if [ ! -f "${LLVM14_LIBDIR:-/usr/lib/llvm-14/lib}/libomptarget.so" ]; then
  echo "1..0 # SKIP LLVM 14's libomptarget.so not found (apt-get install libomp-14-dev)"
  exit 0
fi
exec sh "${OMPEMU_SRCDIR:?}/tests/lowered/run.sh"
