#!/bin/sh
# Run an LLVM release's own libomptarget test suite with LLVM's lit, built
# by that release's clang, against ompemu's runtime and emu plugin or
# against that LLVM's own runtime: LLVM 14's openmp/libomptarget/test
# (target x86_64-pc-linux-gnu, LLVM 14's runtime in /usr/lib/llvm-14), or
# LLVM 19's or 22's offload/test (x86_64-pc-linux-gnu for 19,
# x86_64-unknown-linux-gnu for 22, the host triple 22's lit.cfg knows)
# with the private runtime tree of tests/compilers/provision.sh.  The test
# trees come from fetch-llvm-tests.sh.
#
# Usage: run-llvm-suite.sh [--llvm=14|19|22] [--runtime=ompemu|llvm]
#                          [--expected=FILE [--only-expected]]
#                          [--write-expected=FILE] [--no-fetch] [LIT ARGS...]
# --only-expected runs only the tests FILE lists (lit --filter).
# Environment: OMPEMU_BUILDDIR, OMPEMU_SRCDIR (required), CLANG14 (CLANG19,
#   CLANG22), LLVM14_LIBDIR, OMPEMU_LLVM_SRC_CACHE (where the test trees
#   are cached), LIT_JOBS (default 2), LLVM_SUITE_TIMEOUT (seconds per test
#   program, default 120).
# Prints lit's summary, then "llvm-suite: N passed, M failed".  With
# --expected, exits 1 if a test listed there did not pass.  A missing
# compiler, runtime tree or test tree is a SKIP line and exit status 0.
set -u

major=14 runtime=ompemu expected= write_expected= fetch=1 only=
while [ $# -gt 0 ]; do
  case $1 in
    --llvm=*) major=${1#*=} ;;
    --runtime=*) runtime=${1#*=} ;;
    --expected=*) expected=${1#*=} ;;
    --write-expected=*) write_expected=${1#*=} ;;
    --no-fetch) fetch=0 ;;
    --only-expected) only=1 ;;
    --) shift; break ;;
    *) break ;;
  esac
  shift
done

die() { echo "run-llvm-suite: error: $*" >&2; exit 2; }
# The test names of --expected: one a line, a '#' starts a comment.
expected_tests() { sed -e 's/[#].*//' -e 's/[[:space:]]//g' -e '/^$/d' "$expected"; }
skip() {
  echo "llvm-suite: SKIP LLVM $major's suite: $*"
  echo "llvm-suite: 0 passed, 0 failed (skipped)"
  exit 0
}
: "${OMPEMU_BUILDDIR:?set OMPEMU_BUILDDIR}" "${OMPEMU_SRCDIR:?set OMPEMU_SRCDIR}"
case $runtime in llvm14|llvm"$major") runtime=llvm ;; esac
LLVM14_LIBDIR=${LLVM14_LIBDIR:-/usr/lib/llvm-14/lib}
case $major in
  14)
    CLANG=${CLANG14:-$(command -v clang-14 || true)}
    [ -n "$CLANG" ] || skip "clang-14 not installed (apt-get install clang-14 libomp-14-dev llvm-14-tools)"
    LLVM_LIBDIR=$LLVM14_LIBDIR
    hdr=$(ls -d "$LLVM14_LIBDIR"/clang/*/include 2>/dev/null | head -n 1)
    target=x86_64-pc-linux-gnu
    features="['clang', 'clang-14', 'clang-14.0', 'clang-14.0.6']"
    ompt=False ;;
  19|22)
    eval "CLANG=\${CLANG$major:-\$(command -v clang-$major || true)}"
    [ -n "$CLANG" ] || skip "clang-$major not installed (apt-get install clang-$major)"
    tree=$("$OMPEMU_SRCDIR/tests/compilers/provision.sh" --quiet --offline "$major" 2>&1) ||
      skip "no private LLVM $major runtime tree: $(echo "$tree" | tail -n 1) (make provision-llvm)"
    . "${tree#$major }/ompemu-llvm.env"
    LLVM_LIBDIR=$LLVM_RT_LIBDIR hdr=$LLVM_RT_INCDIR
    if [ "$major" = 19 ]; then target=x86_64-pc-linux-gnu; else target=x86_64-unknown-linux-gnu; fi
    full=$("$CLANG" -dumpversion 2>/dev/null); minor=${full#*.}; minor=${minor%%.*}
    features="['clang', 'clang-$major', 'clang-$major.$minor', 'clang-$full']"
    ompt=True ;;
  *) die "no LLVM suite for '$major' (14, 19 or 22)" ;;
esac
# lit, FileCheck and not: llvm-N-tools, else LLVM 14's.
LLVM_BINDIR=/usr/lib/llvm-$major/bin LIT=
for d in /usr/lib/llvm-$major/build/utils/lit/lit.py /usr/lib/llvm-$major/utils/lit/lit.py \
         /usr/lib/llvm-$major/bin/lit; do
  [ -f "$d" ] && { LIT=$d; break; }
done
if [ -z "$LIT" ] || [ ! -x "$LLVM_BINDIR/FileCheck" ] || [ ! -x "$LLVM_BINDIR/not" ]; then
  LLVM_BINDIR=$(dirname "$LLVM14_LIBDIR")/bin
  LIT=$(dirname "$LLVM14_LIBDIR")/build/utils/lit/lit.py
fi
[ -f "$LIT" ] || die "$LIT not found (apt-get install llvm-$major-tools)"
[ -x "$LLVM_BINDIR/FileCheck" ] || die "$LLVM_BINDIR/FileCheck not found (apt-get install llvm-$major-tools)"
CLANGXX=$(dirname "$CLANG")/$(basename "$CLANG" | sed 's/clang/clang++/')
[ -x "$CLANGXX" ] || CLANGXX=$CLANG++
[ -f "$hdr/omp.h" ] || die "omp.h not found in $hdr"

cache=${OMPEMU_LLVM_SRC_CACHE:-${HOME:-/tmp}/.cache/ompemu}
case $major in
  14) testdir=$cache/llvm-14.0.6/openmp/libomptarget/test ;;
  19) testdir=$cache/llvm-19.1.7/offload/test ;;
  22) testdir=$cache/llvm-22.1.8/offload/test ;;
esac
if [ $fetch = 1 ]; then
  testdir=$(sh "$OMPEMU_SRCDIR/tests/llvm/fetch-llvm-tests.sh" --llvm="$major" "$cache" | tail -n 1) ||
    { [ "$major" = 14 ] && die "could not fetch LLVM 14's test tree (see above)"
      skip "could not fetch its test tree (see above)"; }
fi
[ -f "$testdir/lit.cfg" ] || { [ "$major" = 14 ] && die "no LLVM test tree in $testdir"
                              skip "no test tree in $testdir (make fetch-llvm-tests LLVM_VERSION=$major)"; }

case $major-$runtime in
  *-ompemu)
    rtdir=$OMPEMU_BUILDDIR/.libs
    [ -f "$rtdir/libomptarget.so" ] || die "$rtdir/libomptarget.so not built (run make)"
    [ -f "$rtdir/libomptarget.rtl.emu.so" ] || die "$rtdir/libomptarget.rtl.emu.so not built (run make)"
    hostrtl=$LLVM_LIBDIR
    if [ "$major" != 14 ]; then
      # ompemu's libomptarget with LLVM N's libomp (what libomp-N-dev
      # gives, and what clang N's code calls: __kmpc_omp_taskwait_deps_51
      # and the like).  The build's .libs also holds a libomp.so (LLVM
      # 14's), which -L would find first: the suite links from a directory
      # of links to ompemu's libomptarget and plugins only.
      lib=$OMPEMU_BUILDDIR/tests/llvm/$major-ompemu-lib
      rm -rf "$lib" && mkdir -p "$lib" || die "cannot create $lib"
      for f in "$rtdir"/libomptarget.so* "$rtdir"/libomptarget.rtl.*.so \
               "$rtdir"/libomptarget.devicertl.a; do
        [ -e "$f" ] && ln -s "$f" "$lib/"
      done
      rtdir=$lib
    fi
    ldpath=$rtdir:$hostrtl ;;
  *-llvm)
    rtdir=$LLVM_LIBDIR hostrtl=$LLVM_LIBDIR
    ldpath=$LLVM_LIBDIR ;;
  *) die "unknown runtime '$runtime' (ompemu or llvm)" ;;
esac

case $major-$runtime in
  14-ompemu) obj=$OMPEMU_BUILDDIR/tests/llvm/ompemu ;;
  14-llvm) obj=$OMPEMU_BUILDDIR/tests/llvm/llvm14 ;;
  *) obj=$OMPEMU_BUILDDIR/tests/llvm/$major-$runtime ;;
esac
mkdir -p "$obj" || die "cannot create $obj"
sed -e "s|@CLANG@|$CLANG|" -e "s|@CLANGXX@|$CLANGXX|" \
    -e "s|@OBJ_ROOT@|$obj|" -e "s|@RUNTIME_DIR@|$rtdir|" \
    -e "s|@OMP_HEADER_DIR@|$hdr|" -e "s|@HOST_RTL_DIR@|$hostrtl|" \
    -e "s|@LLVM_BINDIR@|$LLVM_BINDIR|" -e "s|@LD_LIBRARY_PATH@|$ldpath|" \
    -e "s|@LLVM_TEST_DIR@|$testdir|" -e "s|@EXTRA_ENV@||" \
    -e "s|@TARGET@|$target|" -e "s|@COMPILER_FEATURES@|$features|" \
    -e "s|@OMPT@|$ompt|" \
    -e "s|@RUN_TIMEOUT@|${LLVM_SUITE_TIMEOUT:-120}|" \
    "$OMPEMU_SRCDIR/tests/llvm/lit.site.cfg.in" >"$obj/lit.site.cfg" ||
  die "cannot write $obj/lit.site.cfg"

echo "llvm-suite: running LLVM $major's libomptarget tests ($(basename "$CLANG"), $target) against $runtime ($rtdir)"
log=$obj/lit.log
if [ -n "$only" ]; then
  [ -f "$expected" ] || die "--only-expected needs --expected=FILE"
  set -- --filter " :: ($(expected_tests | sed 's/[.+]/\\&/g' | paste -sd '|'))\$" "$@"
fi
python3 "$LIT" -v --no-progress-bar -j "${LIT_JOBS:-2}" "$@" "$obj" >"$log" 2>&1
litrc=$?
# lit's summary; without --expected, also each failing test's script and
# output (lit -v), which --expected limits to the listed tests below.
[ -n "$expected" ] ||
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
  { echo "# LLVM $major libomptarget tests ($target, built by $(basename "$CLANG"))"
    echo "# that pass with LLVM $major's own runtime on Debian 12; written by"
    echo "# run-llvm-suite.sh --llvm=$major --runtime=llvm --write-expected."
    echo "# ompemu must pass all of them."
    sed -n 's/^PASS //p' "$results"; } >"$write_expected"
  echo "llvm-suite: wrote $npass tests to $write_expected"
fi
if [ -n "$expected" ]; then
  missing=
  for t in $(expected_tests); do
    grep -qx "PASS $t" "$results" || missing="$missing $t"
  done
  if [ -n "$missing" ]; then
    echo "llvm-suite: tests that pass on LLVM $major's runtime but not on $runtime:"
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
    echo "llvm-suite: all $(expected_tests | wc -l) tests of $(basename "$expected") pass on $runtime"
  fi
fi
echo "llvm-suite: $npass passed, $nfail failed ($nskip unsupported, runtime $runtime)"
exit $rc
