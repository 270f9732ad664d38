#!/bin/sh
# TAP runner of the hand-lowered descriptor tests (issue 7): gcc +
# ompemu-wrap, run on the emu device through ompemu-run, one line per
# rank (1-3) x addendum (without, with) x order (parent first, members first).
set -u
B=${OMPEMU_BUILDDIR:?} S=${OMPEMU_SRCDIR:?} CC=${CC:-cc}
here=$S/tests/lowered/descfull
work=$B/tests/lowered/descfull
mkdir -p "$work" && cd "$work" || exit 1
echo "1..12"
if ! { $CC -O1 -I"$S/include" -shared -fPIC "$here/dev.c" -o dev.so &&
       "$B/ompemu-wrap" -o wrap.o dev.so &&
       $CC -O1 -I"$S/include" "$here/host.c" wrap.o -lgfortran -L"$B/.libs" -lomptarget \
         -Wl,-rpath,"$B/.libs" -o desc; } >build.log 2>&1; then
  sed 's/^/# /' build.log
  i=1; while [ $i -le 12 ]; do echo "not ok $i - build failed"; i=$((i + 1)); done
  exit 1
fi
n=0 fail=0
for rank in 1 2 3; do
  for add in 0 1; do
    for first in 0 1; do
      n=$((n + 1))
      name="rank $rank, $([ $add = 1 ] && echo with || echo without) addendum, $([ $first = 1 ] && echo members || echo parent) first"
      if OMPEMU_PLUGINS=emu timeout 120 "$B/ompemu-run" ./desc $rank $add $first >case$n.out 2>&1; then
        echo "ok $n - $name"
      else
        echo "not ok $n - $name"; sed 's/^/# /' case$n.out | tail -20; fail=1
      fi
    done
  done
done
exit $fail
