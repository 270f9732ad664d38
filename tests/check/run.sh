#!/bin/sh
# TAP runner for tests/check/: clang-14 offload programs with one bug each
# (or one property of device memory), run on the emu device through
# ompemu-run; *.cpp programs are built by the clang++ of the same version
# (a visible skip without it).  Each program is compiled once into
# $OMPEMU_BUILDDIR/tests/check/bin; one TAP line per program.
#
# Header comments a program may carry:
#   // CFLAGS: flags            extra compiler flags
#   // REQUIRES: address|thread a sanitizer runtime clang-14 must link (the
#                               program is skipped, visibly, without it)
#   // RUN-ENV: VAR=value ...   environment of the run
#   // RUN-ARGS: args           arguments of the run
#   // EXPECT-EXIT: N           exit status (default 0)
#   // EXPECT-STDERR: text      text that must appear in stderr (fixed string)
#   // EXPECT-STDERR-IN-ORDER: text   the same, on a line after the one that
#                               the previous such directive matched
#   // EXPECT-STDOUT: text      text that must appear in stdout
#   // EXPECT-NOT-STDERR: text  text that must not appear in stderr
#   // OMPEMU-RUN: options      options of ompemu-run (--check, --report)
#   // RUN-TWICE-SAME-STDERR    run twice: stdout and stderr must be the same
#   // RUN-SAME-STDERR-TIMES: N  run N more times: stdout and stderr the same
#                               as the first run's every time
#   // SKIP-CLANG-<N>: reason   skipped, with the reason, when built by clang N
#   // SKIP-SANITIZED: reason   skipped in an --enable-sanitizers build
# CHECK_TESTS selects programs by name (default all); CHECK_TEST_WRAPPER
# runs each program under a tool.  `run.sh N` (16, 19, 22) builds them
# with clang N instead, against ompemu with the build tree's equivalent of
# `pkg-config --libs ompemu` and the omp.h of that LLVM's private runtime
# tree (tests/compilers/provision.sh); run as clang-N.sh (the links
# tests/check/clang-16.sh, clang-19.sh, clang-22.sh, make check's names for
# those runs) it takes N from its name.  `run.sh N llvm` (tests/check/
# clang-19-libomp.sh) links them against LLVM N's own libomp instead and
# runs them with it, as a program built with Debian's libomp-N-dev runs.
set -u

way=ompemu
case ${0##*/} in
  clang-*.sh) ver=${0##*/clang-}; ver=${ver%.sh} ;;
  *) ver=${1:-14}; way=${2:-ompemu} ;;
esac
eval "CC_=\${CLANG$ver:-}"
if [ -z "$CC_" ]; then
  echo "1..0 # SKIP clang-$ver not installed (apt-get install clang-$ver)"
  exit 0
fi
: "${OMPEMU_BUILDDIR:?}" "${OMPEMU_SRCDIR:?}"
SRC=$OMPEMU_SRCDIR/tests/check
BIN=$OMPEMU_BUILDDIR/tests/check/bin
TIMEOUT=${CHECK_TEST_TIMEOUT:-60}
EXTRA=
if [ "$ver" != 14 ]; then
  BIN=$BIN-$ver
  mkdir -p "$BIN" || { echo "Bail out! cannot create $BIN"; exit 1; }
  tree=$("$OMPEMU_SRCDIR/tests/compilers/provision.sh" --quiet "$ver" 2>"$BIN/provision.log")
  if [ -z "$tree" ]; then
    echo "1..0 # SKIP no private LLVM $ver runtime tree (omp.h): $(tail -n 1 "$BIN/provision.log")"
    exit 0
  fi
  . "${tree#$ver }/ompemu-llvm.env"
  LIBS=$OMPEMU_BUILDDIR/.libs
  libompdir=$(dirname "$(readlink -f "$LIBS/libomp.so" 2>/dev/null || echo /usr/lib/llvm-14/lib/libomp.so.5)")
  EXTRA="-I$LLVM_RT_INCDIR -L$LIBS -Wl,-rpath,$LIBS -Wl,-rpath,$libompdir -lomptarget"
  if [ "$way" = llvm ]; then
    # The Debian way: linked against LLVM N's own libomp and libomptarget
    # (what libomp-N-dev gives), found through LD_LIBRARY_PATH at run time;
    # ompemu-run still runs the program on ompemu, with LLVM N's libomp.
    BIN=$BIN-llvm
    mkdir -p "$BIN" || { echo "Bail out! cannot create $BIN"; exit 1; }
    EXTRA="-I$LLVM_RT_INCDIR -L$LLVM_RT_LIBDIR"
    LD_LIBRARY_PATH=$LLVM_RT_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export LD_LIBRARY_PATH
  fi
fi
mkdir -p "$BIN" || { echo "Bail out! cannot create $BIN"; exit 1; }

progs=
for t in ${CHECK_TESTS:-$(cd "$SRC" && ls *.c *.cpp | sed 's/\.c\(pp\)\{0,1\}$//' | sort)}; do
  [ -f "$SRC/$t.c" ] || [ -f "$SRC/$t.cpp" ] ||
    { echo "Bail out! no test program '$t' in $SRC"; exit 1; }
  progs="$progs $t"
done
CXX_=$(echo "$CC_" | sed 's|clang\(-[0-9]*\)$|clang++\1|')

directive() { sed -n "s|^// $2: *||p" "$1"; }

# have_san KIND: 0 if the compiler links and runs a -fsanitize=KIND offload
# program here (clang 22 does not: it links the static sanitizer runtime
# into the device image, a shared object).
have_san() {
  printf 'int main(void){int x=0;\n#pragma omp target map(tofrom:x)\nx=1;\nreturn !x;}\n' \
    > "$BIN/san_probe.c"
  # shellcheck disable=SC2086
  "$CC_" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -fsanitize="$1" \
    "$BIN/san_probe.c" -o "$BIN/san_probe_$1" $EXTRA > "$BIN/san_probe_$1.log" 2>&1
}

n=0
set -- $progs
echo "1..$#"
for t in $progs; do
  n=$((n + 1))
  src=$SRC/$t.c exe=$BIN/$t o=$BIN/$t cc=$CC_
  if [ ! -f "$src" ]; then
    src=$SRC/$t.cpp cc=$CXX_
    if [ "$cc" = "$CC_" ] || [ ! -x "$cc" ]; then
      echo "ok $n - $t # SKIP no clang++ beside $CC_"
      continue
    fi
  fi
  skipwhy=$(directive "$src" "SKIP-CLANG-$ver")
  if [ -n "$skipwhy" ]; then
    echo "ok $n - $t # SKIP clang-$ver: $skipwhy"
    continue
  fi
  req=$(directive "$src" REQUIRES)
  case ${CLANG_TEST_WRAPPER:-} in
    *LD_PRELOAD=*)
      sanwhy=$(directive "$src" SKIP-SANITIZED)
      if [ -n "$sanwhy" ]; then
        echo "ok $n - $t # SKIP in a sanitizer build: $sanwhy"
        continue
      fi
      if [ -n "$req" ]; then
        echo "ok $n - $t # SKIP an --enable-sanitizers build preloads its own sanitizer into every program"
        continue
      fi ;;
  esac
  if [ -n "$req" ] && ! have_san "$req"; then
    echo "ok $n - $t # SKIP clang-$ver cannot link a -fsanitize=$req offload program here: $(head -n 1 "$BIN/san_probe_$req.log")"
    continue
  fi
  if [ ! -x "$exe" ] || [ "$src" -nt "$exe" ]; then
    # shellcheck disable=SC2046
    if ! "$cc" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g -O1 \
         $(directive "$src" CFLAGS) "$src" -o "$exe" -lm $EXTRA > "$o.build" 2>&1; then
      echo "not ok $n - $t: does not compile"
      sed 's/^/# /' "$o.build" | head -20
      continue
    fi
  fi
  want_exit=$(directive "$src" EXPECT-EXIT)
  # run_it SUFFIX: one run, its output in $o.out$SUFFIX, $o.err$SUFFIX.
  run_it() {
    # shellcheck disable=SC2046
    env $(directive "$src" RUN-ENV) timeout "$TIMEOUT" \
      "$OMPEMU_BUILDDIR/ompemu-run" $(directive "$src" OMPEMU-RUN) \
      ${CHECK_TEST_WRAPPER:-} "$exe" \
      $(directive "$src" RUN-ARGS) > "$o.out$1" 2> "$o.err$1"
  }
  run_it ""
  rc=$?
  why=
  [ "$rc" -eq "${want_exit:-0}" ] || why="exit status $rc, expected ${want_exit:-0}"
  if [ -z "$why" ]; then
    while IFS= read -r text; do
      [ -z "$text" ] || grep -qF -- "$text" "$o.err" ||
        { why="stderr lacks: $text"; break; }
    done <<EOT
$(directive "$src" EXPECT-STDERR)
EOT
  fi
  if [ -z "$why" ]; then
    last=0
    while IFS= read -r text; do
      [ -n "$text" ] || continue
      last=$(grep -nF -- "$text" "$o.err" | cut -d: -f1 |
        awk -v l="$last" '$1 > l { print; exit }')
      [ -n "$last" ] || { why="stderr lacks, after the previous in-order text: $text"; break; }
    done <<EOT
$(directive "$src" EXPECT-STDERR-IN-ORDER)
EOT
  fi
  if [ -z "$why" ]; then
    while IFS= read -r text; do
      [ -z "$text" ] || ! grep -qF -- "$text" "$o.err" ||
        { why="stderr has: $text"; break; }
    done <<EOT
$(directive "$src" EXPECT-NOT-STDERR)
EOT
  fi
  if [ -z "$why" ]; then
    while IFS= read -r text; do
      [ -z "$text" ] || grep -qF -- "$text" "$o.out" ||
        { why="stdout lacks: $text"; break; }
    done <<EOT
$(directive "$src" EXPECT-STDOUT)
EOT
  fi
  if [ -z "$why" ] && grep -q '^// RUN-TWICE-SAME-STDERR' "$src"; then
    run_it .2
    cmp -s "$o.err" "$o.err.2" || why="stderr differs between two runs"
    cmp -s "$o.out" "$o.out.2" || why="${why:+$why; }stdout differs between two runs"
    [ -z "$why" ] || diff "$o.err" "$o.err.2" | head -n 6 | sed 's/^/# /'
  fi
  times=$(directive "$src" RUN-SAME-STDERR-TIMES)
  i=0
  while [ -z "$why" ] && [ "$i" -lt "${times:-0}" ]; do
    i=$((i + 1))
    run_it .2
    cmp -s "$o.err" "$o.err.2" || why="stderr differs between run 1 and run $((i + 1))"
    cmp -s "$o.out" "$o.out.2" || why="${why:+$why; }stdout differs between run 1 and run $((i + 1))"
    [ -z "$why" ] || diff "$o.err" "$o.err.2" | head -n 6 | sed 's/^/# /'
  done
  if [ -z "$why" ]; then
    echo "ok $n - $t"
  else
    echo "not ok $n - $t: $why"
    sed 's/^/# stdout: /' "$o.out" | head -10
    sed 's/^/# stderr: /' "$o.err" | head -20
  fi
done
