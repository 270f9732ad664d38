#!/bin/sh
# Compile link.c with clang 14 and run it on ompemu (and, with --llvm14, on
# LLVM 14's own runtime, where it fails).
#   ./build.sh [BUILDDIR] [--llvm14]
set -e
cd "$(dirname "$0")"
B=$(cd "${1:-../../build}" && pwd)
mkdir -p out
clang-14 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g link.c -o out/link
echo "== ompemu"
OMPEMU_TRACE=${OMPEMU_TRACE:-1} "$B/ompemu-run" out/link
if [ "${2:-}" = --llvm14 ]; then
  echo "== LLVM 14"
  out/link || echo "(exit status $?)"
fi
