#!/bin/sh
# TAP test of the HSA plugins against the machine's own HSA runtime (if
# any), without the test double: with no AMD GPU (no /dev/kfd) ompemu's hsa
# plugin and LLVM 14's libomptarget.rtl.amdgpu.so both report 0 devices,
# and ompemu's runtime runs the program on the emu device instead.
set -u
B=${OMPEMU_BUILDDIR:?OMPEMU_BUILDDIR is not set}
S=${OMPEMU_SRCDIR:?OMPEMU_SRCDIR is not set}
CC=${CC:-cc}
LLVM14_LIBDIR=${LLVM14_LIBDIR:-/usr/lib/llvm-14/lib}
PROBE=$B/tests/fake-hsa/rtl_probe
PLUGIN=$B/.libs/libomptarget.rtl.hsa.so
AMDGPU=$LLVM14_LIBDIR/libomptarget.rtl.amdgpu.so
W=$B/tests/fake-hsa/work-real
T=$S/tests/lowered
NTESTS=5
n=0
log=$W/step.log

echo "1..$NTESTS"
rm -rf "$W" && mkdir -p "$W" && cd "$W" || { echo "Bail out! cannot create $W"; exit 1; }
: >"$log"
report() {
  n=$((n + 1))
  if [ "$2" -eq 0 ]; then
    echo "ok $n - $1"
  else
    echo "not ok $n - $1"
    sed 's/^/# /' "$log" | tail -30
  fi
  : >"$log"
}
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
step() { echo "+ $*" >>"$log"; "$@" >>"$log" 2>&1; }
# Without the double on the library path (LD_LIBRARY_PATH cleared).
real() { step env -u LD_LIBRARY_PATH "$@"; }

gpu=no
[ -e /dev/kfd ] && gpu=yes

if [ $gpu = yes ]; then
  skip "/dev/kfd exists: this machine may have an AMD GPU (use tests/gpu/run-hsa.sh)"
else
  real OMPEMU_TRACE=1 "$PROBE" "$PLUGIN" &&
    step grep -q "^devices 0$" "$log" &&
    step grep -Eq "^hsa: no devices \((no amdgpu kernel driver: /dev/kfd is absent|HSA runtime not found)\)$" "$log" &&
    ! grep -q "failed\|error" "$log"
  report "ompemu hsa plugin on this machine's HSA runtime: 0 devices and a note that reads as no fault" $?
fi

real OMPEMU_TRACE=2 OMPEMU_HSA_LIBRARY=/nonexistent/libhsa-runtime64.so.1 "$PROBE" "$PLUGIN" &&
  step grep -q "^devices 0$" "$log" &&
  step grep -q "^hsa: no devices (HSA runtime not found)$" "$log" &&
  step grep -q "hsa: dlopen /nonexistent/libhsa-runtime64.so.1: /nonexistent/libhsa-runtime64.so.1: cannot open" "$log"
report "no HSA runtime at all: 0 devices and a note naming the library" $?

if [ ! -f "$AMDGPU" ]; then
  skip "no LLVM 14 amdgpu plugin at $AMDGPU"
elif [ $gpu = yes ]; then
  skip "/dev/kfd exists"
else
  real "$PROBE" "$AMDGPU" && step grep -q "^devices 0$" "$log"
  report "LLVM 14's libomptarget.rtl.amdgpu.so: 0 devices here" $?
fi

# Through ompemu's runtime: an x86-64 image runs on emu whatever the HSA
# side says.
built=1
if [ -x "$B/ompemu-wrap" ] && [ -x "$B/ompemu-run" ] && [ -f "$B/.libs/libomptarget.so" ]; then
  CFLAGS_L="-std=gnu11 -Wall -O1 -g -I$S/include -I$T"
  step "$CC" $CFLAGS_L -shared -fPIC -o hello_x86.dev.so "$T/hello.dev.c" &&
    step "$B/ompemu-wrap" -o wrap-hello_x86.o --offload-arch=x86-64 hello_x86.dev.so &&
    step "$CC" $CFLAGS_L -o hello_x86 "$T/hello.host.c" wrap-hello_x86.o \
      -L"$B/.libs" -lomptarget -Wl,-rpath,"$B/.libs"
  built=$?
fi
if [ $built -ne 0 ] || [ $gpu = yes ]; then
  skip "needs libomptarget, ompemu-wrap and ompemu-run, and no /dev/kfd"
  skip "needs libomptarget, ompemu-wrap and ompemu-run, and no /dev/kfd"
else
  : >"$log"
  real OMPEMU_PLUGINS=hsa,emu OMPEMU_TRACE=1 "$B/ompemu-run" ./hello_x86 &&
    step grep -q "^hsa: no devices (" "$log"
  report "OMPEMU_PLUGINS=hsa,emu with no AMD GPU: runs on emu, with a note" $?
  if [ -f "$AMDGPU" ]; then
    real OMPEMU_PLUGINS="$AMDGPU,emu" OMPEMU_TRACE=1 "$B/ompemu-run" ./hello_x86 &&
      step grep -q "libomptarget.rtl.amdgpu.so.*0 device" "$log"
    report "ompemu's runtime loads LLVM 14's amdgpu plugin: 0 devices, runs on emu" $?
  else
    skip "no LLVM 14 amdgpu plugin"
  fi
fi
[ $n -eq $NTESTS ] || echo "# ran $n of $NTESTS"
exit 0
