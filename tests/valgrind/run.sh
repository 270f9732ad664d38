#!/bin/sh
# `make check-valgrind`: run the cmocka unit test programs and a few
# end-to-end offload programs (hand-lowered ones built with gcc +
# ompemu-wrap, clang-14 ones from tests/clang and examples/demo/saxpy.c)
# under valgrind's memcheck, one TAP line each.  A case fails on any
# memcheck error (invalid access, uninitialised value, bad free) or a
# definite leak; reports from glibc and LLVM 14 code that are not ompemu's
# are suppressed in tests/valgrind/valgrind.supp, each with its reason.
# Environment: OMPEMU_BUILDDIR, OMPEMU_SRCDIR, CC, CLANG14 (empty: no
# clang-14 cases), VALGRIND (default valgrind), VALGRIND_TIMEOUT (seconds
# per program, default 300).  Logs: $OMPEMU_BUILDDIR/tests/valgrind/work.
set -u
B=${OMPEMU_BUILDDIR:?OMPEMU_BUILDDIR is not set}
S=${OMPEMU_SRCDIR:?OMPEMU_SRCDIR is not set}
CC=${CC:-cc}
CLANG14=${CLANG14:-}
VALGRIND=${VALGRIND:-valgrind}
TIMEOUT=${VALGRIND_TIMEOUT:-300}
W=$B/tests/valgrind/work
VG="$VALGRIND -q --error-exitcode=9 --leak-check=full
  --errors-for-leak-kinds=definite --suppressions=$S/tests/valgrind/valgrind.supp"

UNIT_TESTS=$(ls "$B"/tests/unit/test_* "$B"/tests/fake-*/test_* 2>/dev/null |
  grep -v '\.[a-z]*$')
LOWERED="hello struct desc:parent-first refcount"
CLANG_PROGS="map_tofrom target_data nowait_depend declare_mapper teams_reduction interop"

skip_all() { echo "1..0 # SKIP $1"; exit 0; }
command -v "$VALGRIND" >/dev/null 2>&1 || skip_all "valgrind not installed"
# valgrind cannot run ASan-instrumented code.
if readelf -d "$B/.libs/libomptarget.so" 2>/dev/null | grep -q libasan; then
  skip_all "this build uses --enable-sanitizers; valgrind needs a plain build"
fi
[ -x "$B/ompemu-run" ] && [ -x "$B/ompemu-wrap" ] ||
  skip_all "ompemu-run or ompemu-wrap not built in $B"
rm -rf "$W" && mkdir -p "$W" && cd "$W" || { echo "Bail out! cannot create $W"; exit 1; }

n=0
fails=0
# result NAME STATUS LOG: the TAP line, the log's first lines on failure.
result() {
  n=$((n + 1))
  if [ "$2" -eq 0 ]; then
    echo "ok $n - $1"
  else
    fails=$((fails + 1))
    echo "not ok $n - $1 (exit $2)"
    sed 's/^/# /' "$3" | head -40
  fi
}
# vg LOG CMD...: run CMD under valgrind (CMD may start with ompemu-run,
# which execs valgrind with its LD_LIBRARY_PATH), output in LOG.
vg() {
  log=$1
  shift
  timeout -k 10 "$TIMEOUT" "$@" >"$log" 2>&1
}

count=$(echo $UNIT_TESTS | wc -w)
count=$((count + $(echo $LOWERED | wc -w)))
[ -n "$CLANG14" ] && count=$((count + 1 + $(echo $CLANG_PROGS | wc -w)))
echo "1..$count"

export CMOCKA_MESSAGE_OUTPUT=TAP OMPEMU_BUILDDIR OMPEMU_SRCDIR CC
for t in $UNIT_TESTS; do
  name=${t#"$B"/}
  # libtool: some test programs are wrapper scripts around .libs/lt-*.
  vg "$W/$(basename "$t").log" "$B/libtool" --mode=execute $VG "$t"
  result "unit: $name" $? "$W/$(basename "$t").log"
done

L=$S/tests/lowered
CFL="-std=gnu11 -O1 -g -I$S/include -I$L"
for spec in $LOWERED; do
  name=${spec%%:*}
  arg=
  case $spec in *:*) arg=${spec#*:} ;; esac
  log=$W/lowered-$name.log
  if "$CC" $CFL -shared -fPIC -o "$name.dev.so" "$L/$name.dev.c" >"$log" 2>&1 &&
     "$B/ompemu-wrap" --target=x86_64-pc-linux-gnu -o "wrap-$name.o" \
       --offload-arch=x86-64 "$name.dev.so" >>"$log" 2>&1 &&
     "$CC" $CFL -o "$name" "$L/$name.host.c" "wrap-$name.o" \
       -L"$B/.libs" -lomptarget -Wl,-rpath,"$B/.libs" >>"$log" 2>&1; then
    vg "$log" "$B/ompemu-run" $VG "./$name" $arg
    result "lowered: $name${arg:+ $arg}" $? "$log"
  else
    result "lowered: $name${arg:+ $arg} (build failed)" 1 "$log"
  fi
done

if [ -n "$CLANG14" ]; then
  # clang_case NAME SOURCE [CFLAGS...]: compile with clang-14, run on emu.
  clang_case() {
    name=$1 src=$2
    shift 2
    log=$W/clang-$name.log
    if "$CLANG14" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -O1 -g \
         -I"$S/tests/clang" "$@" "$src" -o "$name" >"$log" 2>&1; then
      # Mandatory: a host fallback would run clean with no ompemu code in it.
      vg "$log" env OMP_TARGET_OFFLOAD=mandatory "$B/ompemu-run" $VG "./$name"
      result "clang: $name" $? "$log"
    else
      result "clang: $name (compile failed)" 1 "$log"
    fi
  }
  clang_case saxpy "$S/examples/demo/saxpy.c"
  for p in $CLANG_PROGS; do
    f=$S/tests/clang/$p.c
    # shellcheck disable=SC2046
    clang_case "$p" "$f" $(sed -n 's|^// CFLAGS: *||p' "$f")
  done
fi
[ "$fails" -eq 0 ]
