#!/bin/sh
# TAP: tests/emu/launch_here.c on the emu device (ompemu-run): a kernel
# run on the calling thread sees the same libomp state and device
# identity as one run on a device thread (src/plugins/emu/exec_inline.c).
set -u
echo "1..1"
if [ -z "${CLANG14:-}" ]; then
  echo "ok 1 # SKIP clang-14 not installed"
  exit 0
fi
: "${OMPEMU_BUILDDIR:?}" "${OMPEMU_SRCDIR:?}"
d=$OMPEMU_BUILDDIR/tests/emu/work
mkdir -p "$d" || { echo "Bail out! cannot create $d"; exit 1; }
prog=$d/launch_here
if ! "$CLANG14" -O1 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu \
     -o "$prog" "$OMPEMU_SRCDIR/tests/emu/launch_here.c" >"$d/compile.log" 2>&1; then
  echo "not ok 1 - launch_here does not compile"
  sed 's/^/# /' "$d/compile.log"
  exit 0
fi
OMP_TARGET_OFFLOAD=mandatory timeout 60 "$OMPEMU_BUILDDIR/ompemu-run" "$prog" \
  >"$d/lh.out" 2>"$d/lh.err"
st=$?
if [ $st -eq 0 ] && grep -q "launch_here: 0 wrong" "$d/lh.out"; then
  echo "ok 1 - kernels see the device's libomp state from any host thread"
else
  echo "not ok 1 - kernels see the device's libomp state from any host thread (exit $st)"
  sed 's/^/#   /' "$d/lh.out" | head -5
  tail -n 3 "$d/lh.err" | sed 's/^/#   /'
fi
exit 0
