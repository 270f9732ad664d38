#!/bin/sh
# TAP runner for the flang-22 programs in tests/fortran: each checks its
# own results (prints "NAME: ok", stops with an error code otherwise).
# Built the way a user builds against ompemu,
#   flang-22 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu prog.f90 \
#     $(pkg-config --libs ompemu)
# (here with the build tree's equivalent of those flags), into
# $OMPEMU_BUILDDIR/tests/fortran/bin, and run as `ompemu-run PROG` with
# OMP_TARGET_OFFLOAD=mandatory and ompemu's trace in a file: a run passes
# only when the program's checks pass and the trace shows ompemu's runtime
# registered it.  Known causes of failure (tests/fortran/known-failures.txt)
# make a failure "# TODO"; a pass is always a pass.
# Header comments a program may carry (as in tests/check/run.sh):
#   ! FFLAGS: flags          extra compiler flags (-g)
#   ! OMPEMU-RUN: options    options of ompemu-run (--check)
#   ! EXPECT-EXIT: N         exit status (default 0; another status needs no
#                            "NAME: ok" line: a fault stops the program)
#   ! EXPECT-STDERR: text    text that must appear in stderr (fixed string)
#   ! EXPECT-TRACE: text     text that must appear in ompemu's trace
#   ! EXPECT-NOT-STDERR: text  text that must not appear in stderr
# Environment: FLANG22 (the compiler; unset: a visible skip), FORTRAN_TESTS
# (programs by name), FORTRAN_TEST_TIMEOUT (seconds per run, 60),
# FORTRAN_LIBOMP (another libomp.so.5 to build and run with).
set -u
if [ -z "${FLANG22:-}" ]; then
  echo "1..0 # SKIP flang-22 not installed (apt-get install flang-22)"
  exit 0
fi
: "${OMPEMU_BUILDDIR:?}" "${OMPEMU_SRCDIR:?}"
SRC=$OMPEMU_SRCDIR/tests/fortran
BIN=$OMPEMU_BUILDDIR/tests/fortran/bin
LIBS=$OMPEMU_BUILDDIR/.libs
KNOWN=$SRC/known-failures.txt
TIMEOUT=${FORTRAN_TEST_TIMEOUT:-60}
mkdir -p "$BIN" || { echo "Bail out! cannot create $BIN"; exit 1; }
libompdir=$(dirname "$(readlink -f "$LIBS/libomp.so" 2>/dev/null || echo /usr/lib/llvm-14/lib/libomp.so.5)")
PC_LIBS="-L$LIBS -Wl,-rpath,$LIBS -Wl,-rpath,$libompdir -lomptarget"
# FORTRAN_LIBOMP=/path/to/libomp.so.5: build and run against that libomp
# instead (a private libomp 19 from tests/compilers/provision.sh), in a
# directory of their own; nothing else of its tree is put on a path.
if [ -n "${FORTRAN_LIBOMP:-}" ]; then
  [ -f "$FORTRAN_LIBOMP" ] || { echo "Bail out! FORTRAN_LIBOMP=$FORTRAN_LIBOMP is no file"; exit 1; }
  BIN=$BIN-$(echo "$FORTRAN_LIBOMP" | cksum | cut -d' ' -f1)
  mkdir -p "$BIN/libomp" || { echo "Bail out! cannot create $BIN"; exit 1; }
  ln -sf "$FORTRAN_LIBOMP" "$BIN/libomp/libomp.so"
  ln -sf "$FORTRAN_LIBOMP" "$BIN/libomp/libomp.so.5"
  PC_LIBS="-L$BIN/libomp -Wl,-rpath,$BIN/libomp -L$LIBS -Wl,-rpath,$LIBS -lomptarget"
fi

if [ -n "${FORTRAN_TESTS:-}" ]; then
  progs=
  for t in $FORTRAN_TESTS; do
    f=$SRC/${t%.f90}.f90
    [ -f "$f" ] || { echo "Bail out! no program '$t' in $SRC"; exit 1; }
    progs="$progs $f"
  done
else
  progs=$(ls "$SRC"/*.f90 | sort)
fi
name_of() { n=$(basename "$1"); echo "${n%.f90}"; }
directive() { sed -n "s|^! $2: *||p" "$1"; }

# Build one program; a failed attempt is kept (stamp) until the source,
# the compiler, this script or ompemu's runtime is newer.
build_one() {
  f=$1 n=$(name_of "$1")
  o=$BIN/$n
  if [ -e "$o.stamp" ] && [ "$o.stamp" -nt "$f" ] && [ "$o.stamp" -nt "$FLANG22" ] &&
     [ "$o.stamp" -nt "$SRC/run.sh" ] && { [ -x "$o" ] || [ "$o.stamp" -nt "$LIBS/libomptarget.so" ]; }; then
    return 0
  fi
  rm -f "$o"
  # Each program in its own directory: flang writes .mod files.
  mkdir -p "$o.d"
  # shellcheck disable=SC2086
  (cd "$o.d" && "$FLANG22" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu $(directive "$f" FFLAGS) \
     "$f" $PC_LIBS -o "$o.tmp") \
    >"$o.build.log" 2>&1 && mv -f "$o.tmp" "$o" || rm -f "$o.tmp"
  touch "$o.stamp"
}
if [ "${1:-}" = --build-one ]; then build_one "$2"; exit 0; fi
printf '%s\n' $progs | xargs -P "${FORTRAN_TEST_JOBS:-2}" -n 1 \
  env FLANG22="$FLANG22" OMPEMU_BUILDDIR="$OMPEMU_BUILDDIR" OMPEMU_SRCDIR="$OMPEMU_SRCDIR" \
  sh "$0" --build-one >/dev/null 2>&1

first_error() {
  cat "$@" 2>/dev/null | grep -m 1 -E 'error|Error|FAIL|undefined|not found|fatal|Segmentation|Aborted' ||
    cat "$@" 2>/dev/null | grep -m 1 .
}
known_cause() (
  [ -f "$KNOWN" ] || return 1
  set -f
  grep -v '^#' "$KNOWN" | grep . | while IFS='|' read -r globs cause; do
    cause=$(echo "$cause" | sed 's/^ *//; s/ *$//')
    hit=
    for g in $globs; do
      # shellcheck disable=SC2254
      case $n in $g) hit=1 ;; esac
    done
    [ -n "$hit" ] || continue
    if cat "$@" 2>/dev/null | grep -qF -- "$cause"; then echo "$cause"; return 0; fi
  done
)

# Each program runs as built and, unless it chooses its own ompemu-run
# options, a second time under --check, where it must pass with no
# finding (check mode on flang programs: docs/check.md).
runs=
for f in $progs; do
  runs="$runs $f:"
  [ -n "$(directive "$f" OMPEMU-RUN)" ] || runs="$runs $f:check"
done
echo "1..$(echo $runs | wc -w)"
i=0
: >"$BIN/failures.txt"
for run in $runs; do
  f=${run%:*} mode=${run##*:}
  i=$((i + 1))
  n=$(name_of "$f")
  o=$BIN/$n
  tag="flang-22${mode:+ $mode}"
  if [ ! -x "$o" ]; then
    first=$(first_error "$o.build.log")
    echo "flang-22 $n: does not build: $first" >>"$BIN/failures.txt"
    cause=$(known_cause "$o.build.log")
    echo "not ok $i - $n [$tag] (does not build)${cause:+ # TODO known: $cause}"
    echo "#   first error: $first"
    [ -n "$cause" ] || tail -n 12 "$o.build.log" | sed 's/^/#   /'
    continue
  fi
  rm -f "$o.out" "$o.err" "$o.trace"
  opts=$(directive "$f" OMPEMU-RUN)
  want=$(directive "$f" EXPECT-EXIT)
  [ -z "$mode" ] || opts=--check
  # shellcheck disable=SC2086
  OMP_TARGET_OFFLOAD=mandatory OMPEMU_TEST_DEVICE=emu OMPEMU_TRACE=1 OMPEMU_TRACE_FILE="$o.trace" \
    timeout "$TIMEOUT" "$OMPEMU_BUILDDIR/ompemu-run" $opts "$o" >"$o.out" 2>"$o.err"
  rc=$?
  why=
  missing=$({ directive "$f" EXPECT-STDERR
              [ -z "$mode" ] || echo "ompemu: check: no findings"; } |
    while IFS= read -r text; do
      grep -qF -- "$text" "$o.err" || { echo "$text"; break; }
    done)
  missing_trace=$(directive "$f" EXPECT-TRACE |
    while IFS= read -r text; do
      grep -qF -- "$text" "$o.trace" 2>/dev/null || { echo "$text"; break; }
    done)
  unwanted=$(directive "$f" EXPECT-NOT-STDERR |
    while IFS= read -r text; do
      ! grep -qF -- "$text" "$o.err" || { echo "$text"; break; }
    done)
  if [ $rc -ne "${want:-0}" ]; then why="exit status $rc, expected ${want:-0}"
  elif [ -n "$missing" ]; then why="stderr lacks: $missing"
  elif [ -n "$unwanted" ]; then why="stderr has: $unwanted"
  elif [ -n "$missing_trace" ]; then why="trace lacks: $missing_trace"
  elif [ "${want:-0}" = 0 ] && ! grep -q "^ *$n: ok\$" "$o.out"; then why="no '$n: ok' line"
  elif ! grep -q '^ompemu: register lib' "$o.trace" 2>/dev/null; then
    why="no ompemu trace: the program did not run on ompemu's runtime"
  fi
  if [ -z "$why" ]; then
    echo "ok $i - $n [$tag]"
    continue
  fi
  echo "$why" >"$o.why"
  first=$(first_error "$o.err" "$o.out" "$o.why")
  echo "$tag $n: $why: $first" >>"$BIN/failures.txt"
  cause=$(known_cause "$o.err" "$o.out" "$o.why")
  echo "not ok $i - $n [$tag]${cause:+ # TODO known: $cause}"
  echo "#   $why"
  echo "#   first error: $first"
  [ -n "$cause" ] || { tail -n 12 "$o.err" | sed 's/^/#   /'; tail -n 5 "$o.out" | sed 's/^/#   /'; }
done
exit 0
