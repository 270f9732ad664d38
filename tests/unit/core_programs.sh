#!/bin/sh
# TAP test of the runtime core on clang-14 programs, run through the build
# tree's ompemu-run with LLVM 14's x86_64 plugin and with the emu plugin:
# declare target link, a C++ declare-target global with a destructor, an
# executable plus a dlopen'ed offloading DSO, interop, the offload policy
# and device checks.  Skipped when clang-14 is missing.
B=${OMPEMU_BUILDDIR:-.}
S=${OMPEMU_SRCDIR:-.}
P=$S/tests/unit/core-progs
RUN="timeout ${CORE_PROG_TIMEOUT:-60} $B/ompemu-run"
LLVMLIB=${LLVM14_LIBDIR:-/usr/lib/llvm-14/lib}
CLANG=${CLANG14:-}
N=31
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=1; echo "not ok $n - $1"; sed 's/^/# /' "$W/out" | tail -8; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; fi; }

echo "1..$N"
if [ -z "$CLANG" ] || ! command -v "$CLANG" >/dev/null 2>&1; then
  i=0; while [ $i -lt $N ]; do i=$((i + 1)); echo "ok $i # SKIP clang-14 not found"; done
  exit 0
fi
W=$B/tests/unit/core-progs.tmp
rm -rf "$W"; mkdir -p "$W"
CLANGXX=$(echo "$CLANG" | sed 's/clang\(-[0-9]*\)$/clang++\1/')
OFF="-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu"
$CLANG $OFF "$P/link.c" -o "$W/link" &&
$CLANGXX $OFF "$P/dtor.cpp" -o "$W/dtor" &&
$CLANG $OFF -fPIC -shared "$P/dso_lib.c" -o "$W/libdso.so" &&
$CLANG $OFF "$P/dso_main.c" -o "$W/dso_main" -ldl &&
$CLANG $OFF -fopenmp-version=51 "$P/interop.c" -o "$W/interop" &&
$CLANG $OFF -g "$P/devcheck.c" -o "$W/devcheck" 2>"$W/out" || {
  cat "$W/out"; echo "Bail out! clang-14 failed to build the test programs"; exit 1; }

x86() { env OMPEMU_PLUGINS=x86_64 LD_LIBRARY_PATH="$LLVMLIB" "$@"; }
for mode in x86 emu; do
  if [ $mode = x86 ]; then pre=x86 plugin=x86_64; else pre= plugin=emu; fi
  # The host fallback prints the same values: the trace shows a device ran it.
  OMPEMU_TRACE=1 $pre $RUN "$W/link" >"$W/out" 2>&1; rc=$?
  check "$mode: declare target link" \
    '[ $rc -eq 0 ] && grep -q "s=45 arr9=-9 k=42" "$W/out" && grep -q "claimed by plugin $plugin" "$W/out"'
  OMPEMU_TRACE=1 $pre $RUN "$W/dtor" >"$W/out" 2>&1; rc=$?
  check "$mode: C++ declare-target global: ctor at load, dtor at exit" \
    '[ $rc -eq 0 ] && grep -q "r=7" "$W/out" && grep -q "running ctor" "$W/out" && grep -q "running dtor" "$W/out"'
  OMPEMU_TRACE=1 $pre $RUN "$W/dso_main" "$W/libdso.so" >"$W/out" 2>&1; rc=$?
  check "$mode: executable + dlopen/dlclose/dlopen of an offloading DSO" \
    '[ $rc -eq 0 ] && grep -q "r=1 v=105 r2=2 v2=106" "$W/out" && [ $(grep -c "unregister lib .*libdso.so" "$W/out") -eq 2 ]'
  $pre $RUN "$W/interop" >"$W/out" 2>&1; rc=$?
  check "$mode: interop init/use/destroy" \
    '[ $rc -eq 0 ] && grep -q "io=obj dev=0 rc=0" "$W/out" && grep -q "after destroy: none" "$W/out"'
  $pre $RUN "$W/devcheck" >"$W/out" 2>&1; rc=$?
  check "$mode: omp_get_initial_device() == omp_get_num_devices(), host fallback there" \
    '[ $rc -eq 0 ] && grep -q "host_fallback=1" "$W/out"'
  $pre $RUN "$W/devcheck" bad >"$W/out" 2>&1; rc=$?
  check "$mode: a missing device: not ready, source location, fatal, abort" \
    '[ $rc -eq 134 ] && grep -q "^Libomptarget error: Device 7 is not ready.$" "$W/out" &&
     grep -q "devcheck.c:[0-9]*:[0-9]*: Libomptarget fatal error 1: failure of target construct while offloading is mandatory" "$W/out"'
  $pre $RUN "$W/devcheck" badloop >"$W/out" 2>&1; rc=$?
  check "$mode: a missing device with a pushed trip count: one \"not ready\" line" \
    '[ $rc -eq 134 ] && [ $(grep -c "^Libomptarget error: Device 7 is not ready.$" "$W/out") -eq 1 ] &&
     grep -q "devcheck.c:[0-9]*:[0-9]*: Libomptarget fatal error 1: failure of target construct while offloading is mandatory" "$W/out"'
done

OMP_TARGET_OFFLOAD=disabled $RUN "$W/devcheck" >"$W/out" 2>&1; rc=$?
check "OMP_TARGET_OFFLOAD=disabled: no devices, host fallback" \
  '[ $rc -eq 0 ] && grep -q "ndev=0 initial=0 host_fallback=1" "$W/out"'
OMP_TARGET_OFFLOAD=mandatory OMPEMU_PLUGINS=no-such-plugin $RUN "$W/link" >"$W/out" 2>&1; rc=$?
check "mandatory without devices: the three LLVM lines and abort" \
  '[ $rc -eq 134 ] && grep -q "^Libomptarget error: Consult https://openmp.llvm.org/design/Runtimes.html for debugging options.$" "$W/out" &&
   grep -q "^Libomptarget error: Source location information not present. Compile with -g or -gline-tables-only.$" "$W/out" &&
   grep -q "^Libomptarget fatal error 1: failure of target construct while offloading is mandatory$" "$W/out"'
OMPEMU_PLUGINS=no-such-plugin $RUN "$W/link" >"$W/out" 2>&1; rc=$?
check "default policy without devices: said, and no host fallback (exit 125)" \
  '[ $rc -eq 125 ] && ! grep -q "s=45" "$W/out" &&
   grep -q "OMPEMU_PLUGINS names plugin no-such-plugin, which cannot be used" "$W/out" &&
   grep -q "link: no device can run its target regions: no plugin is loaded (OMPEMU_PLUGINS=no-such-plugin); ompemu does not run them on the host instead" "$W/out"'
OMP_TARGET_OFFLOAD=disabled OMPEMU_PLUGINS=no-such-plugin $RUN "$W/link" >"$W/out" 2>&1; rc=$?
check "OMP_TARGET_OFFLOAD=disabled without devices: host fallback" '[ $rc -eq 0 ] && grep -q "s=45" "$W/out"'
LIBOMPTARGET_INFO=abc x86 $RUN "$W/link" >"$W/out" 2>&1; rc=$?
check "LIBOMPTARGET_INFO=abc: an error message, not a crash" \
  '[ $rc -eq 0 ] && grep -q "LIBOMPTARGET_INFO=.abc. ignored" "$W/out"'
# One parse of LIBOMPTARGET_INFO (decimal, as LLVM's std::stoi) for the
# runtime and the emu plugin; a bad setting reported once, not per reader.
LIBOMPTARGET_INFO=16 $RUN "$W/link" >"$W/out" 2>&1; rc=$?
check "LIBOMPTARGET_INFO=16: the emu plugin's kernel line" \
  '[ $rc -eq 0 ] && grep -q "info: Launching kernel" "$W/out"'
LIBOMPTARGET_INFO=0x10 $RUN "$W/link" >"$W/out" 2>&1; rc=$?
check "LIBOMPTARGET_INFO=0x10 is 0 (decimal) for the emu plugin too" \
  '[ $rc -eq 0 ] && ! grep -q "Launching kernel" "$W/out"'
LIBOMPTARGET_INFO=abc $RUN "$W/link" >"$W/out" 2>&1; rc=$?
check "LIBOMPTARGET_INFO=abc: reported once, ignored by the emu plugin too" \
  '[ $rc -eq 0 ] && [ $(grep -c "LIBOMPTARGET_INFO=.abc. ignored" "$W/out") -eq 1 ]'
OMPEMU_TRACE=x OMPEMU_CHECK=x OMPEMU_QUARANTINE=x $RUN "$W/link" >"$W/out" 2>&1; rc=$?
check "bad OMPEMU_TRACE, OMPEMU_CHECK, OMPEMU_QUARANTINE: each reported once" \
  '[ $rc -eq 0 ] && [ $(grep -c "OMPEMU_TRACE=.x. ignored" "$W/out") -eq 1 ] &&
   [ $(grep -c "OMPEMU_CHECK=.x. ignored" "$W/out") -eq 1 ] &&
   [ $(grep -c "OMPEMU_QUARANTINE=.x. ignored" "$W/out") -eq 1 ]'
OMPEMU_DEVICE_MEMORY=32G OMPEMU_STACK_SIZE=1K $RUN "$W/link" >"$W/out" 2>&1; rc=$?
check "OMPEMU_DEVICE_MEMORY, OMPEMU_STACK_SIZE out of range: the range is said" \
  '[ $rc -eq 0 ] && grep -q "OMPEMU_DEVICE_MEMORY=.32G. ignored: out of range \[64K, 16G\]$" "$W/out" &&
   grep -q "OMPEMU_STACK_SIZE=.1K. ignored: out of range \[64K, 4G\]$" "$W/out"'
OMPEMU_TRACE=1 OMPEMU_PLUGINS="no-such-plugin,emu" $RUN "$W/link" >"$W/out" 2>&1; rc=$?
check "OMPEMU_PLUGINS: a missing plugin is an error, the others run" \
  '[ $rc -eq 0 ] && grep -q "plugin no-such-plugin: not loaded" "$W/out" && grep -q "claimed by plugin emu" "$W/out" &&
   grep -q "^ompemu: error: OMPEMU_PLUGINS names plugin no-such-plugin, which cannot be used: " "$W/out"'
OMPEMU_PLUGINS="no-such-plugin?,emu" $RUN "$W/link" >"$W/out" 2>&1; rc=$?
check "OMPEMU_PLUGINS: a missing optional plugin (name?) is no error" \
  '[ $rc -eq 0 ] && ! grep -q "error" "$W/out" && grep -q "s=45" "$W/out"'
OMPEMU_TRACE=1 OMPEMU_PLUGINS="x86_64,emu" LD_LIBRARY_PATH="$LLVMLIB" $RUN "$W/link" >"$W/out" 2>&1; rc=$?
check "OMPEMU_PLUGINS order decides which plugin claims the image" \
  '[ $rc -eq 0 ] && grep -q "claimed by plugin x86_64" "$W/out"'
OMPEMU_TRACE=1 OMPEMU_PLUGINS="cuda" LD_LIBRARY_PATH="$LLVMLIB" $RUN "$W/link" >"$W/out" 2>&1; rc=$?
check "LLVM 14's cuda plugin loads and is skipped with 0 devices; nothing runs the program" \
  '[ $rc -eq 125 ] && grep -q "plugin cuda .*0 devices, skipped" "$W/out" &&
   grep -q "no device can run its target regions: plugin cuda has no device (OMPEMU_PLUGINS=cuda)" "$W/out" &&
   ! grep -q "OMPEMU_PLUGINS names plugin cuda, which cannot be used" "$W/out"'

# gcc-built, no libomp in the process (docs/design.md contract 7).
${CC:-cc} "$P/init_all.c" -o "$W/init_all" -L"$B/.libs" -lomptarget 2>"$W/out"
OMPEMU_NUM_DEVICES=3 $RUN "$W/init_all" >"$W/out" 2>&1; rc=$?
check "no libomp: __tgt_init_all_rtls starts the emu plugin (3 devices)" \
  '[ $rc -eq 0 ] && grep -q "before=0 after=3 tgt=3 initial=3 info=0" "$W/out"'
x86 $RUN "$W/init_all" >"$W/out" 2>&1; rc=$?
check "no libomp: __tgt_init_all_rtls with LLVM's x86_64 plugin (4 devices)" \
  '[ $rc -eq 0 ] && grep -q "before=0 after=4 tgt=4 initial=4 info=0" "$W/out"'
OMP_TARGET_OFFLOAD=disabled $RUN "$W/init_all" >"$W/out" 2>&1; rc=$?
check "no libomp: OMP_TARGET_OFFLOAD=disabled is read from the environment" \
  '[ $rc -eq 0 ] && grep -q "before=0 after=0" "$W/out"'
exit $fail
