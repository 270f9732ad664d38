#!/bin/sh
# TAP runner of the declare-target-indirect tests (issue 6): builds each case
# with gcc and ompemu-wrap only, runs it on the emu device through ompemu-run.
# Needs OMPEMU_BUILDDIR, OMPEMU_SRCDIR and CC (set by make check).
set -u
B=${OMPEMU_BUILDDIR:?} S=${OMPEMU_SRCDIR:?} CC=${CC:-cc}
here=$S/tests/lowered/fptr
work=$B/tests/lowered/fptr
mkdir -p "$work"
cd "$work" || exit 1
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=1; echo "not ok $n - $1"; [ -f "$2" ] && sed 's/^/# /' "$2" | tail -25; }

cflags="-O1 -g -I$S/include -Wall"
# device IMAGE PREFIX KP: the device image of function set PREFIX.
device() {
  $CC $cflags -shared -fPIC -DKP=$3 "$here/device_kernels.c" "$2_funcs.c" "$2_entries.c" \
    -o "$1" -lpthread >build.log 2>&1 &&
  "$B/ompemu-wrap" -o "$1.wrap.o" "$1" >>build.log 2>&1
}
# program OUT PREFIX N ORDER: gen + device image + wrapped host program.
program() {
  sh "$here/gen.sh" "$3" "$2" "$4" . &&
  device "dev_$1.so" "$2" fk_ &&
  $CC $cflags -DKP=fk_ "$here/fptr_main.c" "$here/host_kernels.c" "$2_funcs.c" "$2_entries.c" \
    "dev_$1.so.wrap.o" -L"$B/.libs" -lomptarget -Wl,-rpath,"$B/.libs" -ldl -o "$1" >>build.log 2>&1
}
# check NAME ENV PROGRAM ARGS...: run and report.
check() {
  name=$1 env=$2; shift 2
  if timeout 120 env $env "$B/ompemu-run" "$@" >"$name.out" 2>&1; then ok "$name"; else notok "$name" "$name.out"; fi
}

echo "1..8"
if [ ! -x "$B/ompemu-wrap" ] || [ ! -x "$B/ompemu-run" ]; then
  for t in one three-unsorted ten-thousand not-found two-devices threads two-libraries unregister; do
    n=$((n + 1)); echo "not ok $n - $t # ompemu-wrap or ompemu-run missing in $B"
  done
  exit 1
fi

if program one f 1 fwd; then check one "" ./one basic; else notok one build.log; fi
if program three f 3 mix; then check three-unsorted "" ./three basic; else notok three-unsorted build.log; fi
if program many f 10000 rev; then check ten-thousand "" ./many basic; else notok ten-thousand build.log; fi
if program notfound f 3 fwd; then check not-found "" ./notfound notfound; else notok not-found build.log; fi
if program devs f 5 mix; then check two-devices "OMPEMU_NUM_DEVICES=2" ./devs devices; else notok two-devices build.log; fi
if program thr f 64 mix; then check threads "" ./thr threads; else notok threads build.log; fi
# Two libraries: the program (f0..f2) and a dlopen'ed library (g0..g4),
# each with its own descriptor; then the library is unregistered (dlclose).
if program main f 3 mix && sh "$here/gen.sh" 5 g rev . && device dev_g.so g gk_ &&
   $CC $cflags -shared -fPIC -DKP=gk_ "$here/host_kernels.c" g_funcs.c g_entries.c dev_g.so.wrap.o \
     -L"$B/.libs" -lomptarget -Wl,-rpath,"$B/.libs" -o libfptr_lib.so >>build.log 2>&1; then
  check two-libraries "" ./main libs "$work/libfptr_lib.so"
  if grep -q 'device 0: table of 3 entries' two-libraries.out && [ "$(grep -c 'table of 8 entries' two-libraries.out)" -ge 2 ]; then
    ok unregister
  else
    notok unregister two-libraries.out
  fi
else
  notok two-libraries build.log; notok unregister build.log
fi
exit $fail
