#!/bin/sh
# End-to-end TAP test of the cuda plugin: the gcc-only hand-lowered programs
# of tests/lowered (hello, global, struct attach, descriptors, refcounts,
# declare target indirect) with their device images patched to EM_CUDA
# (fake-cuda-image), wrapped with ompemu-wrap, run by ompemu's runtime with
# OMPEMU_PLUGINS=cuda,emu on the CUDA driver test double (tests/fake-cuda);
# then the same runtime with no driver (runs on emu, with a note) and with
# LLVM 14's own cuda plugin (0 devices); and the default plugin list, which
# probes the cuda plugin only for an image that may need it.
set -u
B=${OMPEMU_BUILDDIR:?OMPEMU_BUILDDIR is not set}
S=${OMPEMU_SRCDIR:?OMPEMU_SRCDIR is not set}
CC=${CC:-cc}
LLVM14_LIBDIR=${LLVM14_LIBDIR:-/usr/lib/llvm-14/lib}
W=$B/tests/fake-cuda/work
FAKE=$B/tests/fake-cuda/.libs
IMG=$B/tests/fake-cuda/fake-cuda-image
NTESTS=17

echo "1..$NTESTS"
. "$S/tests/gpu/lowered-lib.sh"
if [ ! -x "$B/ompemu-wrap" ] || [ ! -x "$B/ompemu-run" ] ||
   [ ! -f "$B/.libs/libomptarget.so" ] || [ ! -f "$B/.libs/libomptarget.rtl.cuda.so" ] ||
   [ ! -f "$FAKE/libcuda.so.1" ] || [ ! -x "$IMG" ]; then
  skip_all "needs libomptarget, the cuda plugin, ompemu-wrap, ompemu-run and the fake libcuda"
fi
enter_workdir

# on_cuda PROG ARGS...: run with the fake driver, cuda first; log in NAME.fake
on_cuda() {
  out=$(basename "$1").fake
  : >"$out"
  step env LD_LIBRARY_PATH="$FAKE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    OMPEMU_PLUGINS=cuda,emu FAKE_CUDA_LOG="$W/$out" OMPEMU_TRACE=1 \
    timeout 120 "$B/ompemu-run" "$@"
}
# ran_on_cuda PROG KERNEL: the fake's log shows KERNEL ran through the plugin.
ran_on_cuda() {
  step grep -q "cuLaunchKernel dev=0 name=$2" "$1.fake" &&
    step grep -q "run $2" "$1.fake"
}
# cubin NAME [SM]: NAME.dev.c -> NAME.cubin (EM_CUDA, sm_70) -> wrap-NAME.o
cubin() {
  step "$CC" $CFLAGS_L -shared -fPIC -o "$1.dev.so" "$T/$1.dev.c" &&
    step "$IMG" --sm="${2:-70}" "$1.dev.so" "$1.cubin" &&
    step "$B/ompemu-wrap" -o "wrap-$1.o" --offload-arch="sm_${2:-70}" "$1.cubin"
}

: >"$log"
cubin hello && prog hello && on_cuda ./hello &&
  ran_on_cuda hello __omp_offloading_lowered_hello_l12 &&
  step grep -q "cuMemcpyHtoD[A-Za-z_0-9]* dev=0 dst=0x00005c00" hello.fake
report "hello on the cuda plugin (fake driver): kernel launched, values checked" $?

# Driver calls per region through ompemu's runtime (make bench's rows):
# once the pool holds the blocks no region allocates or frees device
# memory, and none synchronizes a stream more than once.
: >"$log"
FC=$S/tests/fake-cuda
step "$CC" $CFLAGS_L -shared -fPIC -o calls.dev.so "$FC/calls.dev.c" &&
  step "$IMG" --sm=70 calls.dev.so calls.cubin &&
  step "$B/ompemu-wrap" -o wrap-calls.o --offload-arch=sm_70 calls.cubin &&
  step "$CC" $CFLAGS_L -o calls "$FC/calls.host.c" wrap-calls.o $LIBS -ldl &&
  on_cuda ./calls && step grep -q "^calls empty " "$log" &&
  ! grep "^calls " "$log" | grep -q "cuMemAlloc_v2\|cuMemFree_v2" &&
  ! grep "^calls " "$log" | grep -q "cuStreamSynchronize=[1-9][0-9]*\.[1-9]\|cuStreamSynchronize=[2-9]"
st=$?
grep "^calls " "$log" | sed 's/^/# /'
report "driver calls per region through the runtime: no cuMemAlloc/cuMemFree, at most one stream synchronize" $st

for t in global struct refcount; do
  : >"$log"
  cubin $t && prog $t && on_cuda ./$t && step grep -q "cuLaunchKernel dev=0" $t.fake
  case $t in
    global) d="declare target to global + target update (cuModuleGetGlobal)" ;;
    struct) d="struct with attached pointer member (PTR_AND_OBJ, MEMBER_OF)" ;;
    refcount) d="enter/exit data reference counts, always, delete" ;;
  esac
  report "$d on the cuda plugin" $?
done
: >"$log"
step grep -q "cuModuleGetGlobal_v2 module=.* -> 0x" global.fake
report "global: the device global was found through cuModuleGetGlobal" $?

: >"$log"
cubin desc && prog desc && on_cuda ./desc parent-first && step grep -q "cuLaunchKernel" desc.fake
report "Fortran descriptors, parent first, on the cuda plugin" $?
: >"$log"
on_cuda ./desc member-first && step grep -q "cuLaunchKernel" desc.fake
report "Fortran descriptors, member first, on the cuda plugin" $?

# Declare target indirect: the fptr programs of tests/lowered/fptr, their
# range checks set to the fake's layout: tables in device k's memory
# (0x5c0000000000 + k * 0x10000000000), device functions inside a module
# the fake loaded (a copy named fake-cuda-module-*).
fptr_build() { # OUT N ORDER
  step sh "$F/gen.sh" "$2" f "$3" . &&
    step "$CC" -O1 -g -I"$S/include" -shared -fPIC -DKP=fk_ "$F/device_kernels.c" \
      f_funcs.c f_entries.c -o "dev_$1.so" -lpthread &&
    step "$IMG" --sm=70 "dev_$1.so" "dev_$1.cubin" &&
    step "$B/ompemu-wrap" -o "dev_$1.o" --offload-arch=sm_70 "dev_$1.cubin" &&
    step "$CC" -O1 -g -D_GNU_SOURCE -I"$S/include" -DKP=fk_ -DDATA_BASE=0x5c0000000000ULL \
      -DSTRIDE=0x010000000000ULL -DCODE_FILE='"fake-cuda-module-"' "$F/fptr_main.c" \
      "$F/host_kernels.c" f_funcs.c f_entries.c "dev_$1.o" $LIBS -ldl -o "$1"
}
: >"$log"
fptr_build fptr3 3 mix && on_cuda ./fptr3 basic &&
  step grep -q "name=__omp_offloading_fptr_map_p -> 0x" fptr3.fake &&
  step grep -q "name=__omp_offloading_fptr_map_size -> 0x" fptr3.fake &&
  step grep -q "__kmpc_target_translate_fptr module=.*(table 0x00005c00.*, 3 entries)" fptr3.fake
report "fptr table: set through cuModuleGetGlobal + copies, translation on the device" $?
: >"$log"
fptr_build fptr100 100 rev && on_cuda ./fptr100 basic && on_cuda ./fptr100 threads
report "fptr table: 100 functions, translated from 8 device threads" $?
: >"$log"
FAKE_CUDA_NUM_DEVICES=2 && export FAKE_CUDA_NUM_DEVICES && on_cuda ./fptr3 devices
st=$?
unset FAKE_CUDA_NUM_DEVICES
report "fptr table: two cuda devices, one table each" $st

# An image for an SM the device cannot run: refused with a note; emu
# cannot run EM_CUDA either, so the program stops (exit 125) instead of
# running on the host, unless OMP_TARGET_OFFLOAD=disabled asks for that.
: >"$log"
mkdir -p sm80 && (cd sm80 && cubin hello 80 && prog hello) &&
  { env LD_LIBRARY_PATH="$FAKE" OMPEMU_PLUGINS=cuda,emu OMPEMU_TRACE=1 \
      "$B/ompemu-run" sm80/hello >>"$log" 2>&1; [ $? -eq 125 ]; } &&
  step grep -q "cuda: image 0x.* refused: built for sm_80; no device can run it (device 0: sm_70)" "$log" &&
  step grep -q "no device can run its target regions: plugin cuda, of its image 0's nvidia devices, refused it" "$log" &&
  step env LD_LIBRARY_PATH="$FAKE" OMPEMU_PLUGINS=cuda,emu OMP_TARGET_OFFLOAD=disabled \
    LOWERED_EXPECT=fallback "$B/ompemu-run" sm80/hello
report "sm_80 image on a sm_70 device: refused with a note, exit 125; host fallback when asked" $?

# No driver: the cuda plugin reports 0 devices with a note; emu runs.
: >"$log"
step "$CC" $CFLAGS_L -shared -fPIC -o hello_x86.dev.so "$T/hello.dev.c" &&
  step "$B/ompemu-wrap" -o wrap-hello_x86.o --offload-arch=x86-64 hello_x86.dev.so &&
  step "$CC" $CFLAGS_L -o hello_x86 "$T/hello.host.c" wrap-hello_x86.o $LIBS
built=$?
if [ $built -eq 0 ] && ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
  step env -u LD_LIBRARY_PATH -u OMPEMU_TRACE OMPEMU_PLUGINS=cuda,emu "$B/ompemu-run" ./hello_x86 &&
    step grep -q "^cuda: no devices (driver not found)$" "$log" &&
    step grep -q "^cuda: dlopen libcuda.so.1: " "$log" &&
    step grep -q "^hello: ok" "$log" &&
    : >"$log" && step env -u LD_LIBRARY_PATH -u OMPEMU_TRACE OMPEMU_PLUGINS="emu,cuda?" "$B/ompemu-run" ./hello_x86 &&
    ! grep -q "cuda:" "$log"
  report "no driver: OMPEMU_PLUGINS=cuda,emu runs on emu with a note (none for the optional cuda?)" $?
else
  n=$((n + 1)); echo "ok $n # SKIP a libcuda.so.1 is installed here (or the build failed)"
fi

# The default plugin list (no OMPEMU_PLUGINS) probes the GPU plugins only
# for an image that may need them: an x86-64 program never loads the cuda
# plugin (the fake driver, on the library path, is never called); one
# with an x86-64 and a sm_70 image probes cuda (not hsa), and the device
# ids follow the list: emu 0, cuda 1.  (The log is grepped without step,
# which writes its command line into the log.)
: >"$log"
fake_log=$W/default.fake
rm -f "$fake_log"
[ $built -eq 0 ] &&
  step env -u OMPEMU_PLUGINS LD_LIBRARY_PATH="$FAKE" FAKE_CUDA_LOG="$fake_log" \
    OMPEMU_TRACE=1 "$B/ompemu-run" ./hello_x86 &&
  grep -q "^hello: ok" "$log" &&
  grep -q "^ompemu:   image 0 claimed by plugin emu" "$log" &&
  ! grep -q "^ompemu: .*plugin \(cuda\|hsa\)" "$log" && [ ! -s "$fake_log" ]
report "default plugins, x86-64 image: no GPU plugin loaded" $?
: >"$log"
rm -f "$fake_log"
[ $built -eq 0 ] &&
  step "$B/ompemu-wrap" -o wrap-both.o --offload-arch=x86-64 hello_x86.dev.so \
    --offload-arch=sm_70 hello.cubin &&
  step "$CC" $CFLAGS_L -o both "$T/hello.host.c" wrap-both.o $LIBS &&
  step env -u OMPEMU_PLUGINS LD_LIBRARY_PATH="$FAKE" FAKE_CUDA_LOG="$fake_log" \
    OMPEMU_TRACE=1 "$B/ompemu-run" ./both &&
  grep -q "^hello: ok" "$log" && grep -q "^ompemu: probing plugin cuda" "$log" &&
  ! grep -q "^ompemu: .*plugin hsa" "$log" &&
  grep -q "^ompemu:   image 1 claimed by plugin cuda" "$log" &&
  grep -q "^ompemu: plugin emu in use: global device ids 0\.\.0" "$log" &&
  grep -q "^ompemu: plugin cuda in use: global device ids 1\.\.1" "$log"
report "default plugins, x86-64 + sm_70 images: cuda probed, emu is device 0, cuda 1" $?

# LLVM 14's own cuda plugin, loaded by ompemu's runtime: 0 devices.
: >"$log"
if [ -f "$LLVM14_LIBDIR/libomptarget.rtl.cuda.so" ] && [ $built -eq 0 ] &&
   ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
  step env -u LD_LIBRARY_PATH OMPEMU_PLUGINS="$LLVM14_LIBDIR/libomptarget.rtl.cuda.so,emu" \
    OMPEMU_TRACE=1 "$B/ompemu-run" ./hello_x86 &&
    step grep -q "libomptarget.rtl.cuda.so.*0 device" "$log"
  report "LLVM 14's libomptarget.rtl.cuda.so under ompemu: 0 devices, runs on emu" $?
else
  n=$((n + 1)); echo "ok $n # SKIP no LLVM 14 cuda plugin, or a libcuda is installed"
fi
# A real cubin from clang-14 + the CUDA toolkit's ptxas (when both are
# here): the plugin decodes its SM from e_flags (CUDA 13 writes ELF ABI
# version 8 even for sm_80) and accepts it for a sm_86 device, refuses it
# for sm_75; the test double then refuses to run a real cubin.
: >"$log"
CUDA_PATH=${CUDA_PATH:-/usr/local/cuda}
if [ -n "${CLANG14:-}" ] && [ -x "$CUDA_PATH/bin/ptxas" ] &&
   [ -f "$LLVM14_LIBDIR/libomptarget-new-nvptx-sm_80.bc" ]; then
  printf '%s\n' 'int main(void) { int x = 1;' \
    '#pragma omp target map(tofrom: x)' '  x += 1;' '  return x == 2 ? 0 : 1; }' >real.c
  step "$CLANG14" -fopenmp -fopenmp-targets=nvptx64-nvidia-cuda -Xopenmp-target \
    -march=sm_80 --cuda-path="$CUDA_PATH" -Wno-unknown-cuda-version real.c -o real
  built_real=$?
  # Both runs fail to offload (the fake cannot run the cubin): only the
  # plugin's decisions are checked.
  step env LD_LIBRARY_PATH="$FAKE" FAKE_CUDA_CC=86 OMPEMU_PLUGINS=cuda OMPEMU_TRACE=2 \
    FAKE_CUDA_LOG="$W/real86.fake" "$B/ompemu-run" ./real
  step env LD_LIBRARY_PATH="$FAKE" FAKE_CUDA_CC=75 OMPEMU_PLUGINS=cuda OMPEMU_TRACE=1 \
    "$B/ompemu-run" ./real
  [ $built_real -eq 0 ] && step grep -q "cuda: image 0x.* accepted" "$log" &&
    step grep -q "a real cubin (OS ABI 0x41)" real86.fake &&
    step grep -q "refused: built for sm_80; no device can run it (device 0: sm_75)" "$log"
  report "a real clang-14 sm_80 cubin: SM decoded, accepted on sm_86, refused on sm_75" $?
else
  n=$((n + 1)); echo "ok $n # SKIP needs clang-14, $CUDA_PATH/bin/ptxas and LLVM 14's nvptx device runtime"
fi
end_tests
