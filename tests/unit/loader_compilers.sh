#!/bin/sh
# The emu loader on device images of the newer compilers (issue 18 item 5;
# docs/abi-clang16-19.md section 5, docs/abi-clang22.md section 6): each
# installed compiler of clang 16, 19, 22, clang++ 22 and flang 22 builds
# tests/unit/images/compilers/probe.*, and tests/unit/loader_try loads the
# device image it made and calls its probe():
#   - C images NEED libomptarget.so.16 / .so.19.1 / .so.22.1 (the device
#     link ran against a stand-in with that soname), ld-linux-x86-64.so.2,
#     have DT_FLAGS SYMBOLIC (19, 22) and a RUNPATH (16); the loader must
#     take the runtime in the process for that NEEDED entry and never open
#     a file of that name: a poisoned libomptarget.so.N on LD_LIBRARY_PATH
#     exits 97 if it is loaded;
#   - the C++ image runs its global's constructor from .init_array, and its
#     virtual call and exception work (R_X86_64_64 against external
#     symbols);
#   - the flang image holds the Fortran runtime (about 1 MB, libc imports)
#     and a GPU-style kernel the loader recognises.
# An absent compiler is a visible skip.
set -u
: "${OMPEMU_BUILDDIR:?}" "${OMPEMU_SRCDIR:?}"
SRC=$OMPEMU_SRCDIR/tests/unit/images/compilers
TRY=$OMPEMU_BUILDDIR/tests/unit/loader_try
W=$OMPEMU_BUILDDIR/tests/unit/work-compilers
CC=${CC:-cc}
LIBOMP=${OMPEMU_TEST_LIBOMP:-}
mkdir -p "$W" || { echo "Bail out! cannot create $W"; exit 1; }

clangxx22=
[ -n "${CLANG22:-}" ] && [ -x "${CLANG22%/*}/clang++-22" ] && clangxx22=${CLANG22%/*}/clang++-22
echo "1..6"

# The poison: every libomptarget name, each exiting 97 when loaded.
poison=$W/poison
mkdir -p "$poison"
printf '%s\n' '#include <unistd.h>' \
  '__attribute__((constructor)) static void p(void) {' \
  '  write(2, "POISON: a libomptarget was loaded\n", 34); _exit(97); }' \
  >"$poison/p.c"
for so in libomptarget.so libomptarget.so.16 libomptarget.so.19.1 libomptarget.so.22.1; do
  "$CC" -shared -fPIC -o "$poison/$so" "$poison/p.c" 2>/dev/null ||
    { echo "Bail out! cannot build the poisoned $so"; exit 1; }
done

# rt_dir SONAME: a -L directory with libomp.so and a stand-in libomptarget.so
# whose soname is SONAME (nothing in it is called).
rt_dir() {
  d=$W/rt-$1
  mkdir -p "$d"
  [ -n "$LIBOMP" ] && ln -sf "$LIBOMP" "$d/libomp.so"
  if [ ! -e "$d/libomptarget.so" ]; then
    echo 'void __tgt_register_lib(void *d) { (void)d; }' >"$d/stub.c"
    "$CC" -shared -fPIC -Wl,-soname,"$1" -o "$d/libomptarget.so" "$d/stub.c"
  fi
  # clang 16 and 19 link -lomptarget.devicertl (nothing in it for x86)
  printf '!<arch>\n' >"$d/libomptarget.devicertl.a"
  echo "$d"
}

# check N NAME COMPILER SOURCE LIBDIR EXPECT-PROBE EXTRA-GREP
check() {
  n=$1 name=$2 comp=$3 src=$4 libdir=$5 want=$6 extra=$7
  if [ -z "$comp" ]; then
    echo "ok $n - $name # SKIP compiler not installed"
    return
  fi
  if [ -z "$LIBOMP" ]; then
    echo "ok $n - $name # SKIP no libomp.so.5 found by configure"
    return
  fi
  d=$W/$name
  rm -rf "$d" && mkdir -p "$d"
  # Only the device image is wanted: the host link may miss entry points
  # (__tgt_target_kernel) that the libomptarget linked against lacks.
  if ! (cd "$d" && "$comp" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu \
        "$SRC/$src" -L"$libdir" -o prog -Wl,--save-temps \
        -Wl,--unresolved-symbols=ignore-in-object-files) >"$d/build.log" 2>&1; then
    echo "not ok $n - $name (the compiler failed)"
    sed 's/^/#   /' "$d/build.log" | tail -n 8
    return
  fi
  img=$(ls "$d"/*.img 2>/dev/null | head -n 1)
  if [ -z "$img" ]; then
    echo "not ok $n - $name (no device image in $d)"
    return
  fi
  OMPEMU_TRACE=2 LD_LIBRARY_PATH=$poison${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
    "$TRY" "$img" probe >"$d/out" 2>&1
  rc=$?
  why=
  if [ $rc -ne 0 ]; then why="loader_try exited $rc"
  elif ! grep -q "^probe() = $want\$" "$d/out"; then why="probe() did not return $want"
  elif [ -n "$extra" ] && ! grep -q -- "$extra" "$d/out"; then why="no '$extra' in its output"
  fi
  if [ -z "$why" ]; then
    echo "ok $n - $name"
  else
    echo "not ok $n - $name ($why)"
    sed 's/^/#   /' "$d/out" | tail -n 12
  fi
}

ours=$OMPEMU_BUILDDIR/.libs
check 1 clang-16 "${CLANG16:-}" probe.c "$(rt_dir libomptarget.so.16)" 6 \
  "needed library libomptarget.so.16 is the runtime in the process"
check 2 clang-19 "${CLANG19:-}" probe.c "$(rt_dir libomptarget.so.19.1)" 6 \
  "needed library libomptarget.so.19.1 is the runtime in the process"
check 3 clang-22 "${CLANG22:-}" probe.c "$(rt_dir libomptarget.so.22.1)" 6 \
  "needed library libomptarget.so.22.1 is the runtime in the process"
check 4 clang++-22 "$clangxx22" probe.cpp "$(rt_dir libomptarget.so.22.1)" 42 ""
# flang's device link needs the device-runtime names: ompemu's runtime.
mkdir -p "$W/rt-ompemu"
ln -sf "$ours/libomptarget.so" "$W/rt-ompemu/libomptarget.so"
[ -n "$LIBOMP" ] && ln -sf "$LIBOMP" "$W/rt-ompemu/libomp.so"
check 5 flang-22 "${FLANG22:-}" probe.f90 "$W/rt-ompemu" 250 " gpu-style"
# The flang image has what item 5 of issue 18 names, and the loader took
# each: DT_FLAGS SYMBOLIC, NEEDED ld-linux-x86-64.so.2 (bound to the one in
# the process), the runtime's NEEDED entry bound to the runtime in the
# process, and the Fortran runtime's symbols (over 1000) linked in.
d=$W/flang-22
if [ -z "${FLANG22:-}" ] || [ -z "$LIBOMP" ]; then
  echo "ok 6 - flang-22 image facts # SKIP flang-22 or libomp absent"
elif ! [ -f "$d/out" ] || ! img=$(ls "$d"/*.img 2>/dev/null | head -n 1) || [ -z "$img" ]; then
  echo "not ok 6 - flang-22 image facts (no image or loader output from test 5)"
else
  why=
  readelf -d "$img" | grep -q '(FLAGS) *SYMBOLIC' || why="no DT_FLAGS SYMBOLIC in the image (flang changed?)"
  readelf -d "$img" | grep -q 'NEEDED.*\[ld-linux-x86-64.so.2\]' || why="${why:-no NEEDED ld-linux-x86-64.so.2 in the image}"
  grep -q 'needed library ld-linux-x86-64.so.2 at handle' "$d/out" || why="${why:-the loader did not bind ld-linux-x86-64.so.2}"
  grep -q 'needed library libomptarget.so is the runtime in the process' "$d/out" ||
    why="${why:-the loader did not bind libomptarget.so to the runtime in the process}"
  nsym=$(sed -n 's/.* loaded at .*, \([0-9]*\) symbols,.*/\1/p' "$d/out" | head -n 1)
  [ "${nsym:-0}" -gt 1000 ] || why="${why:-only ${nsym:-no} symbols loaded (the Fortran runtime is not in the image)}"
  if [ -z "$why" ]; then echo "ok 6 - flang-22 image facts ($nsym symbols)"
  else echo "not ok 6 - flang-22 image facts ($why)"; fi
fi
exit 0
