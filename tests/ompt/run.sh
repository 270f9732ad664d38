#!/bin/sh
# TAP: OMPT target callbacks from ompemu's runtime (docs/ompt.md).  A
# clang-14 program (target_ops.c: enter data, a target region with a tofrom
# map, an update, exit data, a nowait region) runs on the emu device with
# libomp 19 and the OMPT tool tool.c loaded through OMP_TOOL_LIBRARIES; the
# tool's record of every callback, host addresses replaced by the
# variables' names, must equal expected-emi.txt (EMI callbacks) and
# expected-noemi.txt (the non-EMI forms).  With Debian's libomp 14 (no
# ompt_libomp_connect) the tool must get no target callback at all.
#
# libomp 19 is never installed (that would remove libomp-14-dev): it is
# unpacked privately, by tests/compilers/provision.sh when the tree has it,
# otherwise by `apt-get download libomp5-19` and `dpkg-deb -x` into
# ${OMPEMU_LLVM_CACHE:-~/.cache/ompemu/llvm}/libomp5-19.  Skipped when
# clang-14 is missing or libomp 19 cannot be had (no network, no cache).
set -u
if [ -z "${CLANG14:-}" ]; then
  echo "1..0 # SKIP clang-14 not installed"
  exit 0
fi
: "${OMPEMU_BUILDDIR:?}" "${OMPEMU_SRCDIR:?}"
SRC=$OMPEMU_SRCDIR/tests/ompt
RUN=$OMPEMU_BUILDDIR/ompemu-run
cache=${OMPEMU_LLVM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/ompemu/llvm}

# The directory of a private libomp 19 (libomp.so.5), or nothing.
libomp19() {
  prov=$OMPEMU_SRCDIR/tests/compilers/provision.sh
  if [ -f "$prov" ]; then
    tree=$(sh "$prov" --quiet 19 2>/dev/null | sed -n 's/^19 //p')
    [ -n "$tree" ] && [ -e "$tree/usr/lib/llvm-19/lib/libomp.so.5" ] &&
      { echo "$tree/usr/lib/llvm-19/lib"; return 0; }
  fi
  for d in "$cache/19/usr/lib/llvm-19/lib" "$cache/libomp5-19/usr/lib/llvm-19/lib"; do
    [ -e "$d/libomp.so.5" ] && { echo "$d"; return 0; }
  done
  # The minimal download: the one package, unpacked, never installed.
  work=$(mktemp -d "${TMPDIR:-/tmp}/ompemu-libomp19.XXXXXX") || return 1
  if (cd "$work" && apt-get download libomp5-19 >/dev/null 2>&1) &&
     mkdir -p "$cache" && dpkg-deb -x "$work"/libomp5-19_*.deb "$work/root" &&
     rm -rf "$cache/libomp5-19" && mv "$work/root" "$cache/libomp5-19"; then
    rm -rf "$work"
    [ -e "$cache/libomp5-19/usr/lib/llvm-19/lib/libomp.so.5" ] &&
      { echo "$cache/libomp5-19/usr/lib/llvm-19/lib"; return 0; }
  fi
  rm -rf "$work"
  return 1
}
L19=$(libomp19) || { echo "1..0 # SKIP libomp 19 not available (apt-get download libomp5-19 failed and no private copy in $cache)"; exit 0; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ompemu-ompt.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$CLANG14" -shared -fPIC -Wall -o "$tmp/libtool.so" "$SRC/tool.c" 2>"$tmp/cc.log" &&
  "$CLANG14" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g \
    "$SRC/target_ops.c" -o "$tmp/target_ops" 2>>"$tmp/cc.log" ||
  { echo "Bail out! cannot build the tool or the program"; cat "$tmp/cc.log"; exit 1; }

echo "1..5"
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
  n=$((n + 1)); echo "not ok $n - $1"
  [ -s "$tmp/last" ] && tail -n 40 "$tmp/last" | sed 's/^/#   /'
  return 0
}
check() { name=$1; shift; if "$@" >"$tmp/last" 2>&1; then ok "$name"; else not_ok "$name"; fi; }

connect() { nm -D --defined-only "$L19/libomp.so.5" | grep -q ' ompt_libomp_connect'; }
check "libomp 19 ($L19) offers ompt_libomp_connect" connect

# run LIBDIR OUT [ENV...]: run the program with the tool; OUT gets the
# tool's record with &a and &b for the arrays' host addresses.
run() {
  libdir=$1 out=$2
  shift 2
  env "$@" OMP_TOOL_LIBRARIES="$tmp/libtool.so" OMPT_TEST_OUT="$out.raw" \
    LD_LIBRARY_PATH="$libdir" OMP_TARGET_OFFLOAD=mandatory \
    "$RUN" "$tmp/target_ops" >"$out.stdout" 2>"$out.stderr" || {
    echo "the program failed:"; cat "$out.stdout" "$out.stderr"; return 1; }
  grep -q 'target_ops: ok' "$out.stdout" || { cat "$out.stdout"; return 1; }
  a=$(sed -n 's/^ADDR a //p' "$out.stdout") b=$(sed -n 's/^ADDR b //p' "$out.stdout")
  sed -e "s/$a\\b/\\&a/g" -e "s/$b\\b/\\&b/g" "$out.raw" >"$out"
}
# The expected files hold the device addresses of the default layout.  With
# ASan in the process (an --enable-sanitizers build) the emu arena gives a
# data block whose size leaves less than 16 bytes before the next 256-byte
# boundary 16 bytes more of poisoned slack (src/plugins/emu/arena.c,
# layout_of): each of the program's 2048-byte blocks takes 2304 bytes, so
# the second lies further on (the third takes the first's place again:
# under ompemu's runtime the device hands freed memory out at once).
asan_layout=
readelf -d "$OMPEMU_BUILDDIR/.libs/libomptarget.rtl.emu.so" 2>/dev/null |
  grep -q libasan && asan_layout=yes
# same EXPECTED GOT: GOT equals EXPECTED except for the initialize line
# (libomp's own initial_device_num).
same() {
  grep -q '^initialize initial_device=' "$2" || { echo "no initialize line"; return 1; }
  grep -v '^initialize ' "$2" >"$2.cmp"
  if [ -n "$asan_layout" ]; then
    sed -e 's/=0x550000000800 /=0x550000000900 /g' "$1" >"$2.want"
  else
    cp "$1" "$2.want"
  fi
  diff -u "$2.want" "$2.cmp"
}
emi() { run "$L19" "$tmp/emi" && same "$SRC/expected-emi.txt" "$tmp/emi"; }
check "EMI callbacks with libomp 19: device initialize/load/finalize, target, data ops (alloc, to, from, delete) and submits with ompemu's device addresses, byte counts and consistent ids" emi
noemi() { run "$L19" "$tmp/noemi" OMPT_TEST_NOEMI=1 && same "$SRC/expected-noemi.txt" "$tmp/noemi"; }
check "non-EMI callbacks with libomp 19: the same operations, one call each" noemi
twice() { run "$L19" "$tmp/emi2" && diff "$tmp/emi" "$tmp/emi2"; }
check "the callbacks are the same in a second run" twice
# Debian's libomp 14 (the program's RUNPATH) has no ompt_libomp_connect:
# the tool starts, registers its callbacks, and gets no target callback.
old() {
  run "" "$tmp/old" || return 1
  grep -q '^initialize ' "$tmp/old" || { echo "the tool did not start"; cat "$tmp/old"; return 1; }
  ! grep -qE '^(device_|target|data_op|submit)' "$tmp/old"
}
check "with libomp 14 the tool gets no target callback (it has no ompt_libomp_connect)" old
