#!/bin/sh
# TAP runner: the offload programs of tests/clang (and tests/clang/newer,
# what only newer compilers emit) built by clang VERSION (16, 19 or 22) and
# run on ompemu.  Usage: matrix.sh VERSION (tests/clang/clang-N.sh call it).
#
# Each program is compiled once (-c) and linked twice, into
# $OMPEMU_BUILDDIR/tests/clang/bin-VERSION (kept while the source, check.h
# and the compiler are older than the binaries):
#   deb  "the Debian way": against that LLVM version's own runtime (a
#        private copy, tests/compilers/provision.sh), so the binary NEEDs
#        libomptarget.so.16 / .so.19.1 / .so.22.1; run with that version's
#        library directory on LD_LIBRARY_PATH, as its users must
#   pc   against ompemu with the flags `pkg-config --libs ompemu` gives
#        (here the build tree's .libs)
#   check the pc binary under `ompemu-run --check` (docs/check.md): no
#        findings but those the program expects (CHECK-FINDING,
#        CHECK-ERRORS: tests/clang/check_findings.sh)
# Both run as `ompemu-run PROG` with OMP_TARGET_OFFLOAD=mandatory and
# ompemu's trace in a file: a run passes only if the program's own checks
# pass AND the trace shows ompemu's runtime registered it (a run on LLVM's
# runtime leaves no trace and fails).
#
# Header comments, besides those of tests/clang/run.sh (CFLAGS, RUN-ENV,
# EXPECT-EXIT, EXPECT-STDERR, EXPECT-STDOUT):
#   // CFLAGS-<N>: flags        extra flags for clang N only
#   // MIN-CLANG: N             needs clang N or newer (skipped before)
#   // SKIP-CLANG-<N>: reason   skip with clang N (a compiler bug, ...)
#   // NEEDS-LIBOMP: 19          needs libomp 19's entry points (clang 19+
#                               code only): in pc mode it is linked and run
#                               with the tree's libomp (ompemu's libomp.so is
#                               libomp 14; --with-libomp chooses another)
# Known failures: tests/clang/known-failures.txt lists causes; a failure
# whose diagnostics contain a listed cause is reported "# TODO" (expected
# for now), any other failure is a real one; a pass is always a pass.
# Environment: CLANG<N> (the compiler), CLANG_TESTS / CLANG_MATRIX_MODES
# select programs / modes, CLANG_TEST_JOBS parallel compiles (2),
# CLANG_TEST_TIMEOUT seconds per run (60).
set -u
ver=${1:?usage: matrix.sh 16|19|22}
eval "cc=\${CLANG$ver:-}"
if [ -z "$cc" ]; then
  echo "1..0 # SKIP clang-$ver not installed (apt-get install clang-$ver clang-tools-$ver)"
  exit 0
fi
: "${OMPEMU_BUILDDIR:?}" "${OMPEMU_SRCDIR:?}"
SRC=$OMPEMU_SRCDIR/tests/clang
BIN=$OMPEMU_BUILDDIR/tests/clang/bin-$ver
LIBS=$OMPEMU_BUILDDIR/.libs
MODES=${CLANG_MATRIX_MODES:-deb pc check}
TIMEOUT=${CLANG_TEST_TIMEOUT:-60}
WRAPPER=${CLANG_TEST_WRAPPER:-}
KNOWN=$SRC/known-failures.txt
ccxx=$(dirname "$cc")/$(basename "$cc" | sed 's/clang/clang++/')
[ -x "$ccxx" ] || ccxx=
mkdir -p "$BIN" || { echo "Bail out! cannot create $BIN"; exit 1; }

. "$SRC/check_findings.sh"
directive() { sed -n "s|^// $2: *||p" "$1"; }
name_of() { n=$(basename "$1"); echo "${n%.*}"; }

# Compile one program (-c) and link it both ways (run in parallel, see
# below).  Stamps remember attempts, failed ones included: the object is
# remade when the source, check.h, the compiler or this script is newer, a failed pc
# link when ompemu's runtime is.
newer_than_all() { # FILE OTHER...: FILE exists and is newer than each OTHER
  t=$1; shift
  [ -e "$t" ] || return 1
  for x in "$@"; do [ "$t" -nt "$x" ] || return 1; done
}
compile_one() {
  f=$1 n=$(name_of "$1")
  o=$BIN/$n log=$BIN/$n.compile.log
  case $f in
    *.cpp) if [ -n "$ccxx" ]; then c=$ccxx; extra=; else c=$cc; extra="-x c++"; fi
           lextra=-lstdc++ ;;
    *) c=$cc; extra=; lextra= ;;
  esac
  off="-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu"
  relink=
  if ! newer_than_all "$o.c.stamp" "$f" "$SRC/check.h" "$cc" "$SRC/matrix.sh"; then
    rm -f "$o.o" "$o.deb" "$o.pc" "$o.deb.stamp" "$o.pc.stamp"
    # shellcheck disable=SC2046
    $c $off -Wall -I"$SRC" -I"$LLVM_RT_INCDIR" $(directive "$f" CFLAGS) \
      $(directive "$f" "CFLAGS-$ver") $extra -c "$f" -o "$o.o" >"$log" 2>&1 ||
      rm -f "$o.o"
    touch "$o.c.stamp"
    relink=1
  fi
  [ -f "$o.o" ] || return 1
  if [ -n "$relink" ] || [ ! -e "$o.deb.stamp" ]; then
    $c $off "$o.o" $lextra -L"$LLVM_RT_LIBDIR" -o "$o.deb.tmp" >"$o.link-deb.log" 2>&1 &&
      mv -f "$o.deb.tmp" "$o.deb" || rm -f "$o.deb.tmp"
    touch "$o.deb.stamp"
  fi
  if [ -n "$relink" ] || [ ! -e "$o.pc.stamp" ] ||
     { [ ! -x "$o.pc" ] && [ "$LIBS/libomptarget.so" -nt "$o.pc.stamp" ]; }; then
    newomp=
    if [ -n "$(directive "$f" NEEDS-LIBOMP)" ] && [ "$ver" -ge 19 ]; then
      mkdir -p "$BIN/libomp" && ln -sf "$LLVM_RT_LIBDIR/libomp.so.5" "$BIN/libomp/libomp.so"
      newomp=-L$BIN/libomp
    fi
    # shellcheck disable=SC2086
    $c $off "$o.o" $lextra $newomp $PC_LIBS -o "$o.pc.tmp" >"$o.link-pc.log" 2>&1 &&
      mv -f "$o.pc.tmp" "$o.pc" || rm -f "$o.pc.tmp"
    touch "$o.pc.stamp"
  fi
  return 0
}
if [ "${2:-}" = --compile-one ]; then
  . "${3:?}"; compile_one "$4"; exit $?
fi

tree=$("$OMPEMU_SRCDIR/tests/compilers/provision.sh" --quiet "$ver" 2>"$BIN/provision.log")
if [ -z "$tree" ]; then
  echo "1..0 # SKIP no private LLVM $ver runtime tree: $(tail -n 1 "$BIN/provision.log")"
  exit 0
fi
. "${tree#$ver }/ompemu-llvm.env"
# The build-tree equivalent of `pkg-config --libs ompemu`.
libompdir=$(dirname "$(readlink -f "$LIBS/libomp.so" 2>/dev/null || echo /usr/lib/llvm-14/lib/libomp.so.5)")
PC_LIBS="-L$LIBS -Wl,-rpath,$LIBS -Wl,-rpath,$libompdir -lomptarget"

if [ -n "${CLANG_TESTS:-}" ]; then
  progs=
  for t in $CLANG_TESTS; do
    found=
    for f in "$SRC/$t" "$SRC/$t.c" "$SRC/$t.cpp" "$SRC/newer/$t.c" "$SRC/newer/$t.cpp"; do
      [ -f "$f" ] && { progs="$progs $f"; found=1; break; }
    done
    [ -n "$found" ] || { echo "Bail out! no test program '$t' in $SRC"; exit 1; }
  done
else
  progs=$(ls "$SRC"/*.c "$SRC"/*.cpp "$SRC"/newer/*.c "$SRC"/newer/*.cpp 2>/dev/null | sort)
fi


# Programs this compiler skips, with the reason.
skip_reason() {
  f=$1
  min=$(directive "$f" MIN-CLANG | head -n 1)
  if [ -n "$min" ] && [ "$ver" -lt "$min" ]; then
    echo "needs clang $min or newer"; return
  fi
  directive "$f" "SKIP-CLANG-$ver" | head -n 1
}

tobuild=
for f in $progs; do [ -z "$(skip_reason "$f")" ] && tobuild="$tobuild $f"; done
# The child shells get the tree's variables through this file.
envf=$BIN/.env
{ echo "LLVM_RT_LIBDIR='$LLVM_RT_LIBDIR'"; echo "LLVM_RT_INCDIR='$LLVM_RT_INCDIR'"
  echo "PC_LIBS='$PC_LIBS'"; echo "LIBS='$LIBS'"; } >"$envf"
printf '%s\n' $tobuild | xargs -P "${CLANG_TEST_JOBS:-2}" -n 1 \
  env CLANG$ver="$cc" OMPEMU_BUILDDIR="$OMPEMU_BUILDDIR" OMPEMU_SRCDIR="$OMPEMU_SRCDIR" \
  sh "$0" "$ver" --compile-one "$envf" >/dev/null 2>&1

nmodes=$(echo $MODES | wc -w)
nprogs=$(echo $progs | wc -w)
echo "1..$((nmodes * nprogs))"
i=0
: >"$BIN/failures.txt"

diag() { [ -s "$1" ] && tail -n "${2:-12}" "$1" | sed 's/^/#   /'; return 0; }
# first_error FILE...: the first line that looks like an error.
first_error() {
  cat "$@" 2>/dev/null | grep -m 1 -E 'error|Error|FAIL|undefined|not found|fatal|Assertion|Segmentation|Aborted' ||
    cat "$@" 2>/dev/null | grep -m 1 .
}
# known_cause TEXT-FILES...: the first listed cause that appears in them.
known_cause() (
  [ -f "$KNOWN" ] || return 1
  set -f # the globs are for program names, not files
  grep -v '^#' "$KNOWN" | grep . | while IFS='|' read -r who cause; do
    vers=$(echo "$who" | awk '{print $1}') modes=$(echo "$who" | awk '{print $2}')
    globs=$(echo "$who" | awk '{$1=""; $2=""; print}')
    cause=$(echo "$cause" | sed 's/^ *//; s/ *$//')
    case ",$vers," in *",$ver,"*|*",*,"*) ;; *) continue ;; esac
    # Mode check runs the pc binary: pc's causes are its causes too.
    case ",$modes," in *",$mode,"*|*",*,"*) ;;
      *",pc,"*) [ "$mode" = check ] || continue ;;
      *) continue ;; esac
    hit=
    for g in $globs; do
      # shellcheck disable=SC2254
      case $n in $g) hit=1 ;; esac
    done
    [ -n "$hit" ] || continue
    if cat "$@" 2>/dev/null | grep -qF -- "$cause"; then echo "$cause"; return 0; fi
  done
)

# run_mode MODE PROG OUT F: 0 when the run did what is expected on ompemu.
run_mode() {
  mode=$1 prog=$2 o=$3 f=$4
  envs="OMP_TARGET_OFFLOAD=mandatory $(directive "$f" RUN-ENV | tr '\n' ' ')"
  ldp= opt=
  [ "$mode" = deb ] && ldp=$LLVM_RT_LIBDIR
  [ "$mode" = check ] && opt=--check
  [ -n "$(directive "$f" NEEDS-LIBOMP)" ] && [ "$ver" -ge 19 ] && ldp=$LLVM_RT_LIBDIR
  # shellcheck disable=SC2086
  env OMPEMU_TEST_DEVICE=emu OMPEMU_TRACE=1 OMPEMU_TRACE_FILE="$o.trace" $envs \
    LD_LIBRARY_PATH="$ldp" timeout "$TIMEOUT" \
    "$OMPEMU_BUILDDIR/ompemu-run" $opt $WRAPPER "$prog" >"$o.out" 2>"$o.err"
  rc=$?
  expect_outcome "$f" "$o" "$mode" "$rc"
  case $? in 1) return 1 ;; 2) return 0 ;; esac
  # The proof that ompemu's runtime, not LLVM's, ran it.
  if ! grep -q '^ompemu: register lib' "$o.trace" "$o.err" 2>/dev/null; then
    echo "no ompemu trace: the program did not run on ompemu's runtime" >"$o.why"; return 1
  fi
  return 0
}

for f in $progs; do
  n=$(name_of "$f")
  skip=$(skip_reason "$f")
  for mode in $MODES; do
    i=$((i + 1))
    o=$BIN/$n.$mode
    rm -f "$o.why" "$o.out" "$o.err" "$o.trace"
    label="$n [clang-$ver $mode]"
    if [ -n "$skip" ]; then
      echo "ok $i - $label # SKIP $skip"; continue
    fi
    bin=$BIN/$n.$mode lmode=$mode
    [ "$mode" = check ] && bin=$BIN/$n.pc lmode=pc
    if [ ! -x "$bin" ]; then
      logs="$BIN/$n.compile.log"
      [ -f "$BIN/$n.o" ] && logs="$BIN/$n.link-$lmode.log"
      first=$(first_error $logs)
      echo "clang-$ver $mode $n: does not build: $first" >>"$BIN/failures.txt"
      cause=$(known_cause $logs)
      echo "not ok $i - $label (does not build)${cause:+ # TODO known: $cause}"
      echo "#   first error: $first"
      [ -n "$cause" ] || diag $logs
      continue
    fi
    if run_mode "$mode" "$bin" "$o" "$f"; then
      echo "ok $i - $label"
    else
      first=$(first_error "$o.err" "$o.why")
      echo "clang-$ver $mode $n: $(cat "$o.why"): $first" >>"$BIN/failures.txt"
      cause=$(known_cause "$o.err" "$o.why" "$o.out" "$o.trace")
      echo "not ok $i - $label${cause:+ # TODO known: $cause}"
      echo "#   $(cat "$o.why")"
      echo "#   first error: $first"
      [ -n "$cause" ] || { diag "$o.err"; diag "$o.out" 5; }
    fi
  done
done
exit 0
