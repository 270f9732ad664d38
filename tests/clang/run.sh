#!/bin/sh
# TAP runner for the clang-14 offload test programs in tests/clang/.
#
# Each program (*.c, *.cpp) checks its own results and exits 0 on success.
# It is compiled once into $OMPEMU_BUILDDIR/tests/clang/bin (recompiled when
# the source or check.h is newer) and run in several modes, one TAP line
# each:
#   emu     ompemu-run PROG: ompemu's runtime and emulated device
#   x86     ompemu's runtime driving LLVM 14's x86_64 plugin
#           (OMPEMU_PLUGINS=x86_64, $LLVM14_LIBDIR after ompemu's .libs)
#   llvmrt  LLVM 14's own libomptarget.so loading ompemu's emu plugin under
#           the name libomptarget.rtl.x86_64.so (the independent check)
#   llvm    plain LLVM 14 runtime and x86_64 plugin (not in the default set;
#           programs marked LLVM14-FAILS are TODO there)
#   check   ompemu-run --check PROG: the checking mode (docs/check.md) must
#           find nothing but what the program declares with CHECK-FINDING
#           (programs that exercise on purpose what the checker reports)
# CLANG_TEST_MODES selects modes (default "emu x86 llvmrt check"); CLANG_TESTS
# selects programs by name (default all); CLANG_TEST_WRAPPER runs each
# program under a tool (e.g. "valgrind -q --error-exitcode=99").
#
# Header comments a program may carry (each may repeat where it makes sense):
#   // CFLAGS: flags            extra compiler flags
#   // RUN-ENV: VAR=value ...   environment for every mode
#   // EXPECT-EXIT: N           exit status (default 0)
#   // EXPECT-STDERR: text      text that must appear in stderr (fixed string)
#   // EXPECT-STDOUT: text      text that must appear in stdout
#   // SKIP-MODE-<mode>: reason skip that mode, with the reason
#   // RUN-TWICE-SAME-STDOUT    on the emu device, run twice, compare stdout
#   // LLVM14-FAILS: reason     known to fail on LLVM 14's runtime (mode llvm)
#   // CHECK-FINDING: text      mode check: a finding containing text is
#                               expected (tests/clang/check_findings.sh);
#                               any other finding fails the program; after
#                               a finding the exit status is 99 and the
#                               expected output is not looked for
#   // CHECK-ERRORS: reason     mode check: errors provoked on purpose
set -u

if [ -z "${CLANG14:-}" ]; then
  echo "1..0 # SKIP clang-14 not installed (apt-get install clang-14 libomp-14-dev)"
  exit 0
fi
: "${OMPEMU_BUILDDIR:?}" "${OMPEMU_SRCDIR:?}"
LLVM14_LIBDIR=${LLVM14_LIBDIR:-/usr/lib/llvm-14/lib}
SRC=$OMPEMU_SRCDIR/tests/clang
BIN=$OMPEMU_BUILDDIR/tests/clang/bin
LIBS=$OMPEMU_BUILDDIR/.libs
MODES=${CLANG_TEST_MODES:-emu x86 llvmrt check}
TIMEOUT=${CLANG_TEST_TIMEOUT:-60}
WRAPPER=${CLANG_TEST_WRAPPER:-}
CLANGXX=$(dirname "$CLANG14")/$(basename "$CLANG14" | sed 's/clang/clang++/')
mkdir -p "$BIN" || { echo "Bail out! cannot create $BIN"; exit 1; }

if [ -n "${CLANG_TESTS:-}" ]; then
  progs=
  for t in $CLANG_TESTS; do
    found=
    for f in "$SRC/$t" "$SRC/$t.c" "$SRC/$t.cpp"; do
      [ -f "$f" ] && { progs="$progs $f"; found=1; break; }
    done
    # A misspelt name must not shrink the run to "1..0" (all skipped).
    [ -n "$found" ] || { echo "Bail out! no test program '$t' in $SRC"; exit 1; }
  done
else
  progs=$(ls "$SRC"/*.c "$SRC"/*.cpp 2>/dev/null | sort)
fi

# directive FILE NAME: the values of "// NAME: value" lines, one per line.
directive() { sed -n "s|^// $2: *||p" "$1"; }
has_directive() { grep -q "^// $2\$" "$1"; }
name_of() { n=$(basename "$1"); echo "${n%.*}"; }

# Compile every stale program, two at a time.
compile_one() {
  f=$1 n=$(name_of "$1")
  out=$BIN/$n log=$BIN/$n.compile.log
  if [ -x "$out" ] && [ "$out" -nt "$f" ] && [ "$out" -nt "$SRC/check.h" ]; then
    return 0
  fi
  case $f in
    *.cpp) if [ -x "$CLANGXX" ]; then cc=$CLANGXX; extra=; else cc=$CLANG14; extra="-x c++ -lstdc++"; fi ;;
    *) cc=$CLANG14; extra= ;;
  esac
  # shellcheck disable=SC2046
  $cc -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -Wall -I"$SRC" \
    $(directive "$f" CFLAGS) $extra "$f" -o "$out.tmp" >"$log" 2>&1 &&
    mv -f "$out.tmp" "$out" || { rm -f "$out.tmp" "$out"; return 1; }
}
if [ "${1:-}" = --compile-one ]; then compile_one "$2"; exit $?; fi
printf '%s\n' $progs | xargs -P "${CLANG_TEST_JOBS:-2}" -n 1 \
  sh "$0" --compile-one >/dev/null 2>&1

# The emu plugin under LLVM's name, for LLVM 14's runtime (mode llvmrt).
# LD_LIBRARY_PATH is searched before libomptarget's RUNPATH $ORIGIN, so the
# bare-name dlopen of libomptarget.rtl.x86_64.so finds this link first.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ompemu-clang.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
emu_plugin=
for d in "$LIBS" "$OMPEMU_BUILDDIR/src/plugins/emu/.libs"; do
  [ -f "$d/libomptarget.rtl.emu.so" ] && { emu_plugin=$d/libomptarget.rtl.emu.so; break; }
done
ln -s "${emu_plugin:-$LIBS/libomptarget.rtl.emu.so}" "$tmp/libomptarget.rtl.x86_64.so"

nmodes=$(echo $MODES | wc -w)
nprogs=$(echo $progs | wc -w)
echo "1..$((nmodes * nprogs))"
i=0

# diag FILE: show the end of FILE as TAP diagnostics.
diag() { [ -s "$1" ] && tail -n "${2:-15}" "$1" | sed 's/^/#   /'; return 0; }

. "$SRC/check_findings.sh"

# run_mode MODE PROG OUTBASE: run PROG once; 0 if it did what is expected.
run_mode() {
  mode=$1 prog=$2 o=$3 f=$4
  # Mandatory offload unless the program says otherwise: a mode whose
  # plugin failed to load must fail, not pass on the host fallback.
  envs="OMP_TARGET_OFFLOAD=mandatory $(directive "$f" RUN-ENV | tr '\n' ' ')"
  case $mode in
    emu|check)
      [ -x "$OMPEMU_BUILDDIR/ompemu-run" ] || { echo "ompemu-run not built" >"$o.why"; return 1; }
      opt=; [ "$mode" = check ] && opt=--check
      env $envs OMPEMU_TEST_DEVICE=emu timeout "$TIMEOUT" \
        "$OMPEMU_BUILDDIR/ompemu-run" $opt $WRAPPER "$prog" >"$o.out" 2>"$o.err" ;;
    x86)
      # Without ompemu's runtime the RUNPATH would pick LLVM's: refuse.
      [ -f "$LIBS/libomptarget.so" ] || { echo "$LIBS/libomptarget.so not built" >"$o.why"; return 1; }
      env $envs OMPEMU_TEST_DEVICE=x86 OMPEMU_PLUGINS=x86_64 \
        LD_LIBRARY_PATH="$LIBS:$LLVM14_LIBDIR" timeout "$TIMEOUT" \
        $WRAPPER "$prog" >"$o.out" 2>"$o.err" ;;
    llvmrt)
      # Without the emu plugin LLVM's runtime would load its own x86_64
      # plugin from $LLVM14_LIBDIR: refuse.
      [ -n "$emu_plugin" ] || { echo "libomptarget.rtl.emu.so not built" >"$o.why"; return 1; }
      env $envs OMPEMU_TEST_DEVICE=emu \
        LD_LIBRARY_PATH="$tmp:$LLVM14_LIBDIR" timeout "$TIMEOUT" \
        $WRAPPER "$prog" >"$o.out" 2>"$o.err" ;;
    llvm)
      env -u LD_LIBRARY_PATH $envs OMPEMU_TEST_DEVICE=x86 timeout "$TIMEOUT" \
        $WRAPPER "$prog" >"$o.out" 2>"$o.err" ;;
  esac
  rc=$?
  expect_outcome "$f" "$o" "$mode" "$rc"
  [ $? != 1 ]
}

for f in $progs; do
  n=$(name_of "$f")
  for mode in $MODES; do
    i=$((i + 1))
    o=$BIN/$n.$mode
    rm -f "$o.why" "$o.out" "$o.err"
    skip=$(directive "$f" "SKIP-MODE-$mode" | head -n 1)
    if [ -n "$skip" ]; then
      echo "ok $i - $n [$mode] # SKIP $skip"; continue
    fi
    if [ ! -x "$BIN/$n" ]; then
      echo "not ok $i - $n [$mode] (does not compile)"
      diag "$BIN/$n.compile.log"; continue
    fi
    todo=
    [ "$mode" = llvm ] && todo=$(directive "$f" LLVM14-FAILS | head -n 1)
    todo=${todo:+ # TODO LLVM 14: $todo}
    if run_mode "$mode" "$BIN/$n" "$o" "$f"; then
      if [ "$mode" != x86 ] && [ "$mode" != llvm ] &&
         has_directive "$f" RUN-TWICE-SAME-STDOUT; then
        mv "$o.out" "$o.out1"
        if ! run_mode "$mode" "$BIN/$n" "$o" "$f"; then
          echo "not ok $i - $n [$mode] (second run)$todo"
          diag "$o.why"; diag "$o.err"; continue
        elif ! cmp -s "$o.out1" "$o.out"; then
          echo "not ok $i - $n [$mode] (stdout differs between two runs)$todo"
          diff "$o.out1" "$o.out" | head -n 10 | sed 's/^/#   /'; continue
        fi
      fi
      echo "ok $i - $n [$mode]$todo"
    else
      echo "not ok $i - $n [$mode]$todo"
      diag "$o.why"; diag "$o.err"; diag "$o.out" 5
    fi
  done
done
exit 0
