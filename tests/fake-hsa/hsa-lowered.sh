#!/bin/sh
# End-to-end TAP test of the hsa plugin: the gcc-only hand-lowered programs
# of tests/lowered (hello, global, struct attach, descriptors, refcounts,
# declare target indirect), device images built with $CC -shared -fPIC and
# patched to EM_AMDGPU/gfx906 (mk-code-object.sh --patch), wrapped with
# ompemu-wrap --offload-arch=gfx906, run by ompemu's runtime with
# OMPEMU_PLUGINS=hsa,emu on the HSA test double.  Each program checks its
# own values; the double's call log shows the work went through HSA.
set -u
B=${OMPEMU_BUILDDIR:?OMPEMU_BUILDDIR is not set}
S=${OMPEMU_SRCDIR:?OMPEMU_SRCDIR is not set}
CC=${CC:-cc}
W=$B/tests/fake-hsa/work
FAKE=$B/tests/fake-hsa/.libs
MK=$S/tests/fake-hsa/mk-code-object.sh
NTESTS=14

echo "1..$NTESTS"
. "$S/tests/gpu/lowered-lib.sh"
if [ ! -x "$B/ompemu-wrap" ] || [ ! -x "$B/ompemu-run" ] ||
   [ ! -f "$B/.libs/libomptarget.so" ] || [ ! -f "$B/.libs/libomptarget.rtl.hsa.so" ] ||
   [ ! -f "$FAKE/libhsa-runtime64.so.1" ]; then
  skip_all "needs libomptarget, the hsa plugin, ompemu-wrap, ompemu-run and the HSA test double"
fi
enter_workdir

# on_hsa PROG ARGS...: run with the double, hsa first; its log in PROG.fake
on_hsa() {
  out=$(basename "$1").fake
  : >"$out"
  step env LD_LIBRARY_PATH="$FAKE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    OMPEMU_PLUGINS=hsa,emu FAKE_HSA_LOG="$W/$out" OMPEMU_TRACE=1 \
    timeout 120 "$B/ompemu-run" "$@"
}
# ran_on_hsa PROG KERNEL: the double dispatched KERNEL on the gfx906 agent.
ran_on_hsa() {
  step grep -q "dispatch(queue=0x[0-9a-f]*, agent=gfx906#0, kernel=$2, header=0x1502" "$1.fake"
}
# codeobj NAME [ARCH]: NAME.dev.c -> NAME.co (EM_AMDGPU) -> wrap-NAME.o
codeobj() {
  step "$CC" $CFLAGS_L -shared -fPIC -o "$1.co" "$T/$1.dev.c" &&
    step sh "$MK" --patch "$1.co" "${2:-gfx906}" &&
    step "$B/ompemu-wrap" -o "wrap-$1.o" --offload-arch="${2:-gfx906}" "$1.co"
}

: >"$log"
codeobj hello && prog hello && on_hsa ./hello &&
  ran_on_hsa hello __omp_offloading_lowered_hello_l12 &&
  step grep -q "hsa_amd_memory_async_copy(dst=0x00005e00.*src_agent=cpu" hello.fake
report "hello on the hsa plugin (HSA test double): kernel dispatched, values checked" $?

for t in global struct refcount; do
  : >"$log"
  codeobj $t && prog $t && on_hsa ./$t && step grep -q "dispatch(queue=.*agent=gfx906#0" $t.fake
  case $t in
    global) d="declare target to global + target update (executable symbols)" ;;
    struct) d="struct with attached pointer member (PTR_AND_OBJ, MEMBER_OF)" ;;
    refcount) d="enter/exit data reference counts, always, delete" ;;
  esac
  report "$d on the hsa plugin" $?
done
: >"$log"
step grep -q "hsa_executable_symbol_get_info(0x[0-9a-f]*, 21) = 0x0" global.fake
report "global: the device global's address came from hsa_executable_symbol_get_info" $?

: >"$log"
codeobj desc && prog desc && on_hsa ./desc parent-first && step grep -q "dispatch(" desc.fake
report "Fortran descriptors, parent first, on the hsa plugin" $?
: >"$log"
on_hsa ./desc member-first && step grep -q "dispatch(" desc.fake
report "Fortran descriptors, member first, on the hsa plugin" $?

# Declare target indirect: the fptr programs of tests/lowered/fptr, their
# range checks set to the double's layout: tables in GPU k's memory
# (0x5e0000000000 + k * 0x1000000000), device functions inside a code
# object the double loaded (fake-hsa-co-*).
fptr_build() { # OUT N ORDER
  step sh "$F/gen.sh" "$2" f "$3" . &&
    step "$CC" -O1 -g -I"$S/include" -shared -fPIC -DKP=fk_ "$F/device_kernels.c" \
      f_funcs.c f_entries.c -o "dev_$1.co" -lpthread &&
    step sh "$MK" --patch "dev_$1.co" gfx906 &&
    step "$B/ompemu-wrap" -o "dev_$1.o" --offload-arch=gfx906 "dev_$1.co" &&
    step "$CC" -O1 -g -D_GNU_SOURCE -I"$S/include" -DKP=fk_ -DDATA_BASE=0x5e0000000000ULL \
      -DSTRIDE=0x001000000000ULL -DCODE_FILE='"fake-hsa-co-"' "$F/fptr_main.c" \
      "$F/host_kernels.c" f_funcs.c f_entries.c "dev_$1.o" $LIBS -ldl -o "$1"
}
: >"$log"
fptr_build fptr3 3 mix && on_hsa ./fptr3 basic &&
  step grep -q ", __omp_offloading_fptr_map_p) = 0x0" fptr3.fake &&
  step grep -q ", __omp_offloading_fptr_map_size) = 0x0" fptr3.fake &&
  step grep -q "translate_fptr(executable=0x[0-9a-f]*, table=0x00005e00[0-9a-f]*, 3 entries" fptr3.fake
report "fptr table: written through executable symbols + copies, translated on the device" $?
: >"$log"
on_hsa ./fptr3 notfound && step grep -q "translate_fptr(.*) = unchanged" fptr3.fake
report "fptr table: pointers not in the table come back unchanged" $?
: >"$log"
fptr_build fptr100 100 rev && on_hsa ./fptr100 threads
report "fptr table: 100 functions, translated from 8 device threads" $?
: >"$log"
FAKE_HSA_GPUS=gfx906,gfx906 && export FAKE_HSA_GPUS && on_hsa ./fptr3 devices &&
  step grep -q "table=0x00005e10" fptr3.fake
st=$?
unset FAKE_HSA_GPUS
report "fptr table: two gfx906 agents, one table each in its own memory" $st

# An image for an ISA no agent has: refused with a note naming both; emu
# cannot run EM_AMDGPU either, so the program stops (exit 125) instead of
# running on the host, unless OMP_TARGET_OFFLOAD=disabled asks for that.
: >"$log"
mkdir -p gfx90a && (cd gfx90a && codeobj hello gfx90a && prog hello) &&
  { env LD_LIBRARY_PATH="$FAKE" OMPEMU_PLUGINS=hsa,emu OMPEMU_TRACE=1 \
      "$B/ompemu-run" gfx90a/hello >>"$log" 2>&1; [ $? -eq 125 ]; } &&
  step grep -q "hsa: image 0x[0-9a-f]* refused: code object for mach 0x3f (gfx90a), agents are gfx906" "$log" &&
  step grep -q "no device can run its target regions: plugin hsa, of its image 0's amd devices, refused it" "$log" &&
  step env LD_LIBRARY_PATH="$FAKE" OMPEMU_PLUGINS=hsa,emu OMP_TARGET_OFFLOAD=disabled \
    LOWERED_EXPECT=fallback "$B/ompemu-run" gfx90a/hello
report "gfx90a image with a gfx906 agent: refused with a note, exit 125; host fallback when asked" $?

# The double's hsa_init failing: 0 hsa devices, emu runs an x86-64 image.
: >"$log"
step "$CC" $CFLAGS_L -shared -fPIC -o hello_x86.dev.so "$T/hello.dev.c" &&
  step "$B/ompemu-wrap" -o wrap-hello_x86.o --offload-arch=x86-64 hello_x86.dev.so &&
  step "$CC" $CFLAGS_L -o hello_x86 "$T/hello.host.c" wrap-hello_x86.o $LIBS &&
  step env LD_LIBRARY_PATH="$FAKE" FAKE_HSA_INIT_FAIL=1 OMPEMU_PLUGINS=hsa,emu \
    OMPEMU_TRACE=1 "$B/ompemu-run" ./hello_x86 &&
  step grep -q "^hsa: no devices (" "$log"
report "hsa_init failing: the hsa plugin has 0 devices with a note, emu runs" $?
# A real code object from clang-14 for gfx906: its e_flags (with feature
# bits) decode to the agent's ISA and the plugin accepts it; the double
# cannot run GPU code, so the load fails with the HSA call and status named.
: >"$log"
if [ -n "${CLANG14:-}" ] && command -v "$CLANG14" >/dev/null 2>&1 &&
   [ -f "${LLVM14_LIBDIR:-/usr/lib/llvm-14/lib}/libomptarget-new-amdgpu-gfx906.bc" ]; then
  printf '%s\n' 'int main(void) { int x = 0;' \
    '#pragma omp target map(tofrom: x)' 'x = 1;' 'return !x; }' >amdgcn.c
  if step "$CLANG14" -fopenmp -fopenmp-targets=amdgcn-amd-amdhsa \
       -Xopenmp-target=amdgcn-amd-amdhsa -march=gfx906 amdgcn.c -o amdgcn; then
    on_hsa ./amdgcn
    step grep -q "hsa: image 0x[0-9a-f]* accepted: mach 0x2f (gfx906) runs on device 0" "$log" &&
      step grep -q "hsa: error: hsa_executable_load_agent_code_object failed (status 0x1010" "$log" &&
      step grep -q "a real AMDGPU code object" amdgcn.fake
    report "clang-14 gfx906 code object: accepted by ISA, load error names the HSA call" $?
  else
    n=$((n + 1)); echo "ok $n # SKIP clang-14 cannot build for amdgcn here"
  fi
else
  n=$((n + 1)); echo "ok $n # SKIP no clang-14 or no amdgcn device runtime"
fi
end_tests
