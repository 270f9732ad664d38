#!/bin/sh
# TAP runner of the hand-lowered tests: for each program, build the device
# image with $CC -shared -fPIC, wrap it with ompemu-wrap, link the host C
# code and the wrapper object against a libomptarget, run it and let the
# program check its values.
#
# Runtime (OMPEMU_LOWERED_RUNTIME): "ompemu" links the build tree's
# .libs/libomptarget.so and runs through ompemu-run on the emu device;
# "llvm14" links LLVM 14's libomptarget (+ libomp, which it needs) and runs
# on its x86_64 plugin; "auto" (default) takes ompemu when the runtime, the
# emu plugin and ompemu-run are built, else LLVM 14.  Keep device and host
# tables in the same order: LLVM 14 pairs entries by position.
set -u

B=${OMPEMU_BUILDDIR:?OMPEMU_BUILDDIR is not set}
S=${OMPEMU_SRCDIR:?OMPEMU_SRCDIR is not set}
CC=${CC:-cc}
LLVM14_LIBDIR=${LLVM14_LIBDIR:-/usr/lib/llvm-14/lib}
T=$S/tests/lowered
WRAP=$B/ompemu-wrap
NTESTS=20

mode=${OMPEMU_LOWERED_RUNTIME:-auto}
if [ "$mode" = auto ]; then
  if [ -f "$B/.libs/libomptarget.so" ] && [ -x "$B/ompemu-run" ] &&
     [ -f "$B/.libs/libomptarget.rtl.emu.so" ]; then
    mode=ompemu
  elif [ -f "$LLVM14_LIBDIR/libomptarget.so" ]; then
    mode=llvm14
  else
    mode=none
  fi
fi

echo "1..$NTESTS"
if [ "$mode" = none ] || [ ! -x "$WRAP" ]; then
  i=1
  while [ $i -le $NTESTS ]; do
    echo "ok $i # SKIP no runtime to run on (build ompemu, or install libomp-14-dev) or no ompemu-wrap"
    i=$((i + 1))
  done
  exit 0
fi
echo "# runtime: $mode"
W=$B/tests/lowered/work-$mode

case $mode in
  ompemu)
    LIBS="-L$B/.libs -lomptarget -Wl,-rpath,$B/.libs"
    RUN="timeout 120 $B/ompemu-run" ;;
  llvm14)
    LIBS="-L$LLVM14_LIBDIR -Wl,--no-as-needed -lomp -lomptarget -Wl,-rpath,$LLVM14_LIBDIR"
    RUN= ;;
  *) echo "Bail out! unknown OMPEMU_LOWERED_RUNTIME=$mode"; exit 1 ;;
esac

rm -rf "$W" && mkdir -p "$W" || { echo "Bail out! cannot create $W"; exit 1; }
cd "$W" || exit 1
CFLAGS_L="-std=gnu11 -Wall -Wextra -O1 -g -I$S/include -I$T"
n=0
log=$W/step.log

# report NAME STATUS [TODO-reason]: print the TAP line and the log on failure.
report() {
  n=$((n + 1))
  if [ "$2" -eq 0 ]; then
    echo "ok $n - $1"
  else
    if [ $# -ge 3 ]; then
      echo "not ok $n - $1 # TODO $3"
    else
      echo "not ok $n - $1"
    fi
    sed 's/^/# /' "$log" | head -40
  fi
}

# step CMD...: run one build or run step, output appended to the log.
step() {
  echo "+ $*" >>"$log"
  "$@" >>"$log" 2>&1
}

# dev NAME: build NAME.dev.so from NAME.dev.c.
dev() { step "$CC" $CFLAGS_L -shared -fPIC -o "$1.dev.so" "$T/$1.dev.c"; }

# prog NAME OUT [extra link args]: link host NAME.host.c with wrap-NAME.o.
prog() {
  name=$1 out=$2
  shift 2
  step "$CC" $CFLAGS_L -o "$out" "$T/$name.host.c" "$@" $LIBS
}

# run PROG ARGS...: run under the chosen runtime.
run() { step $RUN "$@"; }

# Simple one-image tests.
simple() {
  : >"$log"
  name=$1
  shift
  dev "$name" && step "$WRAP" --target=x86_64-pc-linux-gnu -o "wrap-$name.o" \
    --offload-arch=x86-64 "$name.dev.so" &&
    prog "$name" "$name" "wrap-$name.o" && run "./$name" "$@"
}

simple hello; report "hello: one kernel, tofrom array" $?
simple global; report "declare target to global + target update" $?
simple struct; report "struct with attached pointer member (PTR_AND_OBJ, MEMBER_OF)" $?
simple desc parent-first; report "Fortran descriptor rank 1 and 2, parent first" $?
: >"$log"; run ./desc member-first
st=$?
if [ "$mode" = llvm14 ]; then
  report "Fortran descriptor rank 1 and 2, member first" $st "LLVM 14 refuses member-first lists (explicit extension)"
else
  report "Fortran descriptor rank 1 and 2, member first" $st
fi
simple refcount; report "enter/exit data reference counts, always, delete" $?
# A declare-target variable of 40 bytes on the host and 80 in the image:
# runs (the host's size is mapped); ompemu and ompemu-dump say so.
simple globalsize >/dev/null
st=$?
if [ "$mode" = ompemu ]; then
  [ $st -eq 0 ] &&
    grep -qF "ompemu: warning: ./globalsize: declare target variable lowered_tab is 40 bytes on the host and 80 bytes in device image 0" "$log" &&
    "$B/ompemu-dump" globalsize >>"$log" 2>&1 &&
    grep -qF "warning: declare target variable lowered_tab is 40 bytes on the host and 80 bytes in this image" "$log"
  report "a global of another size on the device: runs, said at registration and by ompemu-dump" $?
else
  report "a global of another size on the device: runs (LLVM 14 says nothing)" $st
fi
# A kernel's entry with a size field of 64 (0 expected): said as a
# kernel's entry, by the runtime and by ompemu-dump, never as a variable.
simple kernelsize >/dev/null
st=$?
if [ "$mode" = ompemu ]; then
  [ $st -eq 0 ] &&
    grep -qF "ompemu: warning: ./kernelsize: host entry __omp_offloading_lowered_kernelsize_l9 is the entry of a kernel (device image 0 defines it as a function) with a size field of 64, where 0 is expected" "$log" &&
    "$B/ompemu-dump" kernelsize >>"$log" 2>&1 &&
    grep -qF "warning: host entry __omp_offloading_lowered_kernelsize_l9 is the entry of a kernel (this image defines it as a function) with a size field of 64, where 0 is expected" "$log" &&
    ! grep -q "declare target variable" "$log"
  report "a kernel's entry with a size: said as a kernel's, at registration and by ompemu-dump" $?
else
  report "a kernel's entry with a size: runs (LLVM 14 says nothing)" $st
fi
simple literal; report "an int passed by value (LITERAL, 4 bytes) in a pointer-sized slot" $?
# The rest of that slot reads as a host data address: the checking mode
# must leave the argument alone (only its 4 bytes are the value).
: >"$log"
if [ "$mode" = ompemu ]; then
  run --check ./literal
  report "the checking mode passes that int unchanged" $?
else
  n=$((n + 1)); echo "ok $n # SKIP the checking mode is ompemu's"
fi

# A foreign image (the hello image with e_machine patched to EM_AMDGPU).
: >"$log"
cp hello.dev.so amdgpu.dev.so && printf '\340\000' |
  dd of=amdgpu.dev.so bs=1 seek=18 conv=notrunc 2>/dev/null
step "$WRAP" -o wrap-two.o --offload-arch=gfx906 amdgpu.dev.so \
  --offload-arch=x86-64 hello.dev.so && prog hello two wrap-two.o &&
  run ./two
report "two images, the first for EM_AMDGPU: the x86-64 one is picked" $?

# ompemu's trace names each image's arch (from __tgt_register_image_info)
# and which image the emu plugin claimed.
: >"$log"
if [ "$mode" = ompemu ]; then
  OMPEMU_TRACE=1 $RUN ./two >two.trace 2>&1
  st=$?
  cat two.trace >>"$log" 2>/dev/null
  [ $st -eq 0 ] && grep -q 'image 0: arch gfx906' two.trace &&
    grep -q 'image 1: arch x86-64' two.trace &&
    grep -q 'image 1 claimed by plugin emu' two.trace &&
    ! grep -q 'image 0 claimed' two.trace
  report "trace shows each image's arch and that image 1 was claimed" $?
else
  n=$((n + 1)); echo "ok $n # SKIP the image-info trace is ompemu's"
fi

: >"$log"
step "$WRAP" -o wrap-foreign.o --offload-arch=gfx906 amdgpu.dev.so &&
  prog hello foreign wrap-foreign.o
built=$?
if [ "$mode" = ompemu ]; then
  # ompemu does not run it on the host in the device's place: it says so
  # and stops (exit 125), unless the user chose the host.
  ok=1
  if [ $built -eq 0 ]; then
    $RUN ./foreign >foreign.out 2>&1
    st=$?
    cat foreign.out >>"$log"
    echo "exit status $st" >>"$log"
    [ $st -eq 125 ] && grep -q "no device can run its target regions: its image 0 is for amd devices" foreign.out &&
      OMP_TARGET_OFFLOAD=disabled LOWERED_EXPECT=fallback run ./foreign && ok=0
  fi
  report "only a foreign image: said, exit 125; OMP_TARGET_OFFLOAD=disabled: host fallback" $ok
else
  [ $built -eq 0 ] && LOWERED_EXPECT=fallback run ./foreign
  report "only a foreign image: host fallback" $?
fi

: >"$log"
OMP_TARGET_OFFLOAD=mandatory $RUN ./foreign >mandatory.out 2>&1
st=$?
cat mandatory.out >>"$log"
ok=1
if [ $st -ne 0 ] && grep -q "Libomptarget fatal error 1: failure of target construct while offloading is mandatory" mandatory.out; then
  ok=0
fi
echo "exit status $st" >>"$log"
report "only a foreign image, OMP_TARGET_OFFLOAD=mandatory: LLVM's fatal error" $ok

# A kernel that cannot start (a fault injected into the emu plugin) makes
# the construct fail with a message naming it: LLVM's fatal error.
: >"$log"
if [ "$mode" = ompemu ]; then
  OMPEMU_INJECT=launch:1 OMP_TARGET_OFFLOAD=mandatory $RUN ./hello >inject.out 2>&1
  st=$?
  cat inject.out >>"$log"
  echo "exit status $st" >>"$log"
  [ $st -ne 0 ] &&
    grep -q "emu: error: device 0: kernel __omp_offloading_lowered_hello_l12 (0x0000554000[0-9a-f]*) could not start: injected fault" inject.out &&
    grep -q "Libomptarget fatal error 1: failure of target construct while offloading is mandatory" inject.out &&
    ! grep -q "hello: ok" inject.out
  report "a kernel that cannot start: the construct fails, naming the kernel" $?
else
  n=$((n + 1)); echo "ok $n # SKIP the fault is injected by ompemu's emu plugin"
fi

# An executable and a shared library, each with its own descriptor.
: >"$log"
dev dsolib && step "$WRAP" -o wrap-dsolib.o dsolib.dev.so &&
  step "$CC" $CFLAGS_L -shared -fPIC -o libdsolib.so "$T/dsolib.host.c" \
    wrap-dsolib.o $LIBS &&
  step "$CC" $CFLAGS_L -DLOWERED_NO_MAIN -o dsomain "$T/hello.host.c" \
    "$T/dsomain.c" wrap-hello.o -L. -ldsolib "-Wl,-rpath,$W" $LIBS &&
  run ./dsomain
report "executable and shared library, one descriptor each" $?

# The wrapper object in a non-PIE executable, a PIE and a shared library.
: >"$log"
prog hello nopie wrap-hello.o -no-pie && step sh -c "readelf -h nopie | grep -q 'EXEC'" &&
  run ./nopie
report "wrapped object linked into a non-PIE executable" $?
: >"$log"
prog hello pie wrap-hello.o -fPIE -pie && step sh -c "readelf -h pie | grep -q 'DYN'" &&
  run ./pie
report "wrapped object linked into a PIE" $?
: >"$log"
step "$CC" $CFLAGS_L -fPIC -shared -DLOWERED_NO_MAIN -o libhello.so \
  "$T/hello.host.c" wrap-hello.o $LIBS &&
  step "$CC" $CFLAGS_L -DLOWERED_NO_DSOLIB -o soonly "$T/dsomain.c" -L. \
    -lhello "-Wl,-rpath,$W" $LIBS &&
  run ./soonly
report "wrapped object linked into a shared library" $?

# The example a reader starts from must keep working.
: >"$log"
if [ "$mode" = ompemu ]; then
  OUT="$W/example" OMPEMU_TRACE=1 step sh "$S/examples/lowered-hello/build.sh" "$B" &&
    grep -q '^device: 10 20 30 40 50 60 70 80$' "$log" &&
    grep -q 'launch __omp_offloading_hello_main_l8' "$log"
  report "examples/lowered-hello builds and runs on the emu device" $?
else
  n=$((n + 1)); echo "ok $n # SKIP the example runs through ompemu-run"
fi
exit 0
