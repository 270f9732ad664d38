#!/bin/sh
# TAP: tests/emu/launch_here*.c on the emu device (ompemu-run): a kernel
# run on the calling thread sees the same libomp state and device
# identity as one run on a device thread, and one that changes libomp
# state runs on a device thread (src/plugins/emu/exec_inline.c).
set -u
echo "1..2"
if [ -z "${CLANG14:-}" ]; then
  echo "ok 1 # SKIP clang-14 not installed"
  echo "ok 2 # SKIP clang-14 not installed"
  exit 0
fi
: "${OMPEMU_BUILDDIR:?}" "${OMPEMU_SRCDIR:?}"
d=$OMPEMU_BUILDDIR/tests/emu/work
mkdir -p "$d" || { echo "Bail out! cannot create $d"; exit 1; }
# one NAME TESTNUM WHAT: compile and run tests/emu/NAME.c, one TAP line.
one() {
  prog=$d/$1
  if ! "$CLANG14" -O1 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu \
       -o "$prog" "$OMPEMU_SRCDIR/tests/emu/$1.c" >"$d/$1.log" 2>&1; then
    echo "not ok $2 - $1 does not compile"
    sed 's/^/# /' "$d/$1.log"
    return
  fi
  OMP_TARGET_OFFLOAD=mandatory timeout 60 "$OMPEMU_BUILDDIR/ompemu-run" "$prog" \
    >"$d/$1.out" 2>"$d/$1.err"
  st=$?
  if [ $st -eq 0 ] && grep -q "$1: 0 wrong" "$d/$1.out"; then
    echo "ok $2 - $3"
  else
    echo "not ok $2 - $3 (exit $st)"
    sed 's/^/#   /' "$d/$1.out" | head -5
    tail -n 3 "$d/$1.err" | sed 's/^/#   /'
  fi
}
one launch_here 1 "kernels see the device's libomp state from any host thread"
one launch_here_set 2 "omp_set_num_threads in a kernel leaves the host thread's ICVs alone"
exit 0
