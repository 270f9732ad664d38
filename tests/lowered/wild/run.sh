#!/bin/sh
# TAP runner of the wild-descriptor tests: a hand-registered descriptor
# whose pointers are unreadable (host.c) must give one error line naming
# what is wrong, not a crash (and, when no image is left, the refusal); wild locations and map names under --check
# are treated as absent.
set -u
B=${OMPEMU_BUILDDIR:?} S=${OMPEMU_SRCDIR:?} CC=${CC:-cc}
here=$S/tests/lowered/wild
work=$B/tests/lowered/wild
mkdir -p "$work" && cd "$work" || exit 1
echo "1..6"
if ! { $CC -O1 -I"$S/include" -shared -fPIC "$S/tests/lowered/hello.dev.c" -o hello.dev.so &&
       $CC -O1 -Wall -I"$S/include" "$here/host.c" -L"$B/.libs" -lomptarget \
         -Wl,-rpath,"$B/.libs" -o wild; } >build.log 2>&1; then
  sed 's/^/# /' build.log
  i=1; while [ $i -le 6 ]; do echo "not ok $i - build failed"; i=$((i + 1)); done
  exit 1
fi
n=0 fail=0
# t CASE PATTERN [ompemu-run option]: runs, exits 0, prints PATTERN.
t() {
  n=$((n + 1))
  c=$1 pat=$2
  shift 2
  OMPEMU_PLUGINS=emu timeout 120 "$B/ompemu-run" "$@" \
    ./wild "$c" "$work/hello.dev.so" >"$c.out" 2>&1
  st=$?
  if [ $st -eq 0 ] && grep -q "^wild $c: ok" "$c.out" &&
     grep -q -- "$pat" "$c.out"; then
    echo "ok $n - $c"
  else
    echo "not ok $n - $c (exit status $st)"; sed 's/^/# /' "$c.out" | tail -20
    fail=1
  fi
}
# r CASE PATTERN: the same, but no image is left: the program is stopped
# (exit status 125) with the refusal after the error (registry.c).
r() {
  n=$((n + 1))
  c=$1 pat=$2
  OMPEMU_PLUGINS=emu timeout 120 "$B/ompemu-run" ./wild "$c" \
    "$work/hello.dev.so" >"$c.out" 2>&1
  st=$?
  if [ $st -eq 125 ] && grep -q -- "$pat" "$c.out" &&
     grep -q "no device can run its target regions: none of its [0-9]* device images\{0,1\} can be read" "$c.out"; then
    echo "ok $n - $c"
  else
    echo "not ok $n - $c (exit status $st)"; sed 's/^/# /' "$c.out" | tail -20
    fail=1
  fi
}
t name "^ompemu: error: .*: host entry table: entry 0: name pointer 0x[0-9a-f]* is unreadable: the entry is not used$"
r image "^ompemu: error: .*: descriptor 0x[0-9a-f]*: device image 0 of 1: ImageStart..ImageEnd 0x[0-9a-f]*..0x[0-9a-f]* is unreadable: the image is not used$"
r records "^ompemu: error: .*: descriptor 0x[0-9a-f]*: its 5 device image record(s) at 0x[0-9a-f]* are unreadable (NumDeviceImages wrong?): no image is used$"
t table "^ompemu: error: .*: host entry table 0x[0-9a-f]*..0x[0-9a-f]* is unreadable: its entries are not used$"
t loc "^ompemu: check: no findings" --check
t names "^ompemu: check: no findings" --check
exit $fail
