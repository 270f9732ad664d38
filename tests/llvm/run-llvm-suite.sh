#!/bin/sh
# Run LLVM 14's libomptarget test suite (openmp/libomptarget/test, fetched
# by fetch-llvm-tests.sh) with LLVM's lit, target x86_64-pc-linux-gnu,
# against ompemu's runtime and emu plugin or against LLVM 14's own runtime.
#
# Usage: run-llvm-suite.sh [--runtime=ompemu|llvm14] [--expected=FILE]
#                          [--write-expected=FILE] [--no-fetch] [LIT ARGS...]
# Environment: OMPEMU_BUILDDIR, OMPEMU_SRCDIR (required), CLANG14,
#   LLVM14_LIBDIR, OMPEMU_LLVM_SRC_CACHE (where the test tree is cached),
#   LIT_JOBS (default 2), LLVM_SUITE_TIMEOUT (seconds per test program,
#   default 120).
# Prints lit's summary, then "llvm-suite: N passed, M failed".  With
# --expected, exits 1 if a test listed there did not pass.
set -u

runtime=ompemu expected= write_expected= fetch=1
while [ $# -gt 0 ]; do
  case $1 in
    --runtime=*) runtime=${1#*=} ;;
    --expected=*) expected=${1#*=} ;;
    --write-expected=*) write_expected=${1#*=} ;;
    --no-fetch) fetch=0 ;;
    --) shift; break ;;
    *) break ;;
  esac
  shift
done

die() { echo "run-llvm-suite: error: $*" >&2; exit 2; }
: "${OMPEMU_BUILDDIR:?set OMPEMU_BUILDDIR}" "${OMPEMU_SRCDIR:?set OMPEMU_SRCDIR}"
CLANG14=${CLANG14:-$(command -v clang-14 || true)}
LLVM14_LIBDIR=${LLVM14_LIBDIR:-/usr/lib/llvm-14/lib}
if [ -z "$CLANG14" ]; then
  echo "llvm-suite: SKIP clang-14 not installed (apt-get install clang-14 libomp-14-dev llvm-14-tools)"
  echo "llvm-suite: 0 passed, 0 failed (skipped)"
  exit 0
fi
LLVM14_ROOT=$(dirname "$LLVM14_LIBDIR")
LLVM14_BINDIR=$LLVM14_ROOT/bin
LIT=$LLVM14_ROOT/build/utils/lit/lit.py
[ -f "$LIT" ] || die "$LIT not found (apt-get install llvm-14-tools)"
[ -x "$LLVM14_BINDIR/FileCheck" ] || die "$LLVM14_BINDIR/FileCheck not found (apt-get install llvm-14-tools)"
CLANGXX=$(dirname "$CLANG14")/$(basename "$CLANG14" | sed 's/clang/clang++/')
[ -x "$CLANGXX" ] || CLANGXX=$CLANG14++
hdr=$(ls -d "$LLVM14_LIBDIR"/clang/*/include 2>/dev/null | head -n 1)
[ -f "$hdr/omp.h" ] || die "omp.h not found under $LLVM14_LIBDIR/clang/*/include"

cache=${OMPEMU_LLVM_SRC_CACHE:-${HOME:-/tmp}/.cache/ompemu}
if [ $fetch = 1 ]; then
  testdir=$(sh "$OMPEMU_SRCDIR/tests/llvm/fetch-llvm-tests.sh" "$cache" | tail -n 1) ||
    die "could not fetch LLVM 14's test tree (see above)"
else
  testdir=$cache/llvm-14.0.6/openmp/libomptarget/test
fi
[ -f "$testdir/lit.cfg" ] || die "no LLVM test tree in $testdir"

case $runtime in
  ompemu)
    rtdir=$OMPEMU_BUILDDIR/.libs
    [ -f "$rtdir/libomptarget.so" ] || die "$rtdir/libomptarget.so not built (run make)"
    [ -f "$rtdir/libomptarget.rtl.emu.so" ] || die "$rtdir/libomptarget.rtl.emu.so not built (run make)"
    ldpath=$rtdir:$LLVM14_LIBDIR ;;
  llvm14)
    rtdir=$LLVM14_LIBDIR
    ldpath=$LLVM14_LIBDIR ;;
  *) die "unknown runtime '$runtime' (ompemu or llvm14)" ;;
esac

obj=$OMPEMU_BUILDDIR/tests/llvm/$runtime
mkdir -p "$obj" || die "cannot create $obj"
sed -e "s|@CLANG@|$CLANG14|" -e "s|@CLANGXX@|$CLANGXX|" \
    -e "s|@OBJ_ROOT@|$obj|" -e "s|@RUNTIME_DIR@|$rtdir|" \
    -e "s|@OMP_HEADER_DIR@|$hdr|" -e "s|@LLVM14_LIBDIR@|$LLVM14_LIBDIR|" \
    -e "s|@LLVM14_BINDIR@|$LLVM14_BINDIR|" -e "s|@LD_LIBRARY_PATH@|$ldpath|" \
    -e "s|@LLVM_TEST_DIR@|$testdir|" -e "s|@EXTRA_ENV@||" \
    -e "s|@RUN_TIMEOUT@|${LLVM_SUITE_TIMEOUT:-120}|" \
    "$OMPEMU_SRCDIR/tests/llvm/lit.site.cfg.in" >"$obj/lit.site.cfg" ||
  die "cannot write $obj/lit.site.cfg"

echo "llvm-suite: running LLVM 14's libomptarget tests against $runtime ($rtdir)"
log=$obj/lit.log
python3 "$LIT" -v --no-progress-bar -j "${LIT_JOBS:-2}" "$@" "$obj" >"$log" 2>&1
litrc=$?
# Failure details first (lit -v prints each failing test's script and
# output), then lit's own summary.
sed -n '/^\*\*\*\*\*\*\*\*\*\* TEST/,/^\*\*\*\*\*\*\*\*\*\*$/p' "$log"
sed -n '/^Testing Time:/,$p' "$log"

results=$obj/results.txt
sed -n 's/^\([A-Z]*\): libomptarget :: [^:]* :: \(.*\) ([0-9]* of [0-9]*)$/\1 \2/p' "$log" |
  sort -k2 >"$results"
[ -s "$results" ] || { cat "$log"; die "lit produced no results (exit $litrc)"; }
npass=$(grep -c '^PASS ' "$results")
nfail=$(grep -cE '^(FAIL|XPASS|UNRESOLVED|TIMEOUT) ' "$results")
nskip=$(grep -c '^UNSUPPORTED ' "$results")

rc=0
if [ -n "$write_expected" ]; then
  { echo "# LLVM 14.0.6 libomptarget tests (x86_64-pc-linux-gnu) that pass with"
    echo "# LLVM 14's own runtime on Debian 12; written by run-llvm-suite.sh"
    echo "# --runtime=llvm14 --write-expected.  ompemu must pass all of them."
    sed -n 's/^PASS //p' "$results"; } >"$write_expected"
  echo "llvm-suite: wrote $npass tests to $write_expected"
fi
if [ -n "$expected" ]; then
  missing=
  for t in $(grep -v '^#' "$expected"); do
    grep -qx "PASS $t" "$results" || missing="$missing $t"
  done
  if [ -n "$missing" ]; then
    echo "llvm-suite: tests that pass on LLVM 14 but not on $runtime:"
    for t in $missing; do
      echo "  $(grep " $t\$" "$results" || echo "MISSING $t")"
      # Hints: the first lines of its output from ompemu (emu:, ompemu:,
      # Libomptarget ...), else the first FileCheck or crash line.
      awk -v t=":: $t' FAILED" 'index($0, t) { on = 1; next }
        on && /^\*{20}$/ { exit }
        !on || /^\$ / { next }
        { sub(/^ *[0-9]+: /, ""); sub(/[ \t]+$/, "") }
        /^(emu: |ompemu: |Libomptarget (error|fatal|message))/ && !seen[$0]++ {
          if (n < 2) hint[n++] = $0 }
        /(error: CHECK|Segmentation|Assertion|command failed)/ && !other { other = $0 }
        END { if (n == 0 && other != "") hint[n++] = other
              for (i = 0; i < n; i++) print "      " substr(hint[i], 1, 200) }' "$log"
    done
    rc=1
  else
    echo "llvm-suite: all $(grep -vc '^#' "$expected") tests of $(basename "$expected") pass on $runtime"
  fi
fi
echo "llvm-suite: $npass passed, $nfail failed ($nskip unsupported, runtime $runtime)"
exit $rc
