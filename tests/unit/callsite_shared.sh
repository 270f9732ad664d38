#!/bin/sh
# The device memory routines' messages name calls made from a shared
# library (src/runtime/callsite.c): by file, line and variable when the
# library has a line table (DWARF 5 and -gdwarf-4), and by library and
# offset without -g, an offset addr2line resolves to the same line in
# the same library built with -g.  Host memory (omp_get_initial_device())
# so that any C compiler builds it.
set -u
: "${OMPEMU_BUILDDIR:?}"
LIB=$OMPEMU_BUILDDIR/.libs/libomptarget.so
W=$OMPEMU_BUILDDIR/tests/unit/work-callsite-shared
CC=${CC:-cc}
mkdir -p "$W" || { echo "Bail out! cannot create $W"; exit 1; }
cat >"$W/lib.c" <<'EOC'
void omp_target_free(void *, int);
int released;
void release_twice(void *block, int host) {
  omp_target_free(block, host);
  released++;
  omp_target_free(block,
                  host);
  released++;
}
EOC
cat >"$W/main.c" <<'EOC'
#include <stddef.h>
#include <stdio.h>
void *omp_target_alloc(size_t, int);
int omp_get_initial_device(void);
void release_twice(void *, int);
int main(void) {
  int host = omp_get_initial_device();
  void *buf = omp_target_alloc(64, host);
  release_twice(buf, host);
  printf("done\n");
  return 0;
}
EOC
san=
readelf -d "$LIB" 2>/dev/null | grep -q libasan && san=-fsanitize=address,undefined
echo "1..3"
# build_run NAME LIBFLAGS: lib$NAME.so from lib.c with LIBFLAGS, main
# linked to it, run; stderr in $W/NAME.err.
build_run() {
  "$CC" $san -O0 -fPIC -shared $2 -o "$W/lib$1.so" "$W/lib.c" >"$W/$1.log" 2>&1 &&
    "$CC" $san -O0 -g -o "$W/main_$1" "$W/main.c" -L"$W" -l"$1" \
      -Wl,-rpath,"$W" -L"${LIB%/*}" -Wl,-rpath,"${LIB%/*}" -lomptarget \
      >>"$W/$1.log" 2>&1 || { echo "build failed"; cat "$W/$1.log"; return 1; }
  (cd "$W" && OMP_TARGET_OFFLOAD=disabled ./"main_$1") >"$W/$1.out" 2>"$W/$1.err"
}
n=1
for v in g gdwarf-4; do
  want="ompemu: error: omp_target_free(block) at lib.c:6: 0x"
  want2="(64 bytes of the host memory, allocated by omp_target_alloc at main.c:8) was already freed at lib.c:4: nothing done"
  if build_run "$v" "-$v" && grep -qF "$want" "$W/$v.err" && grep -qF "$want2" "$W/$v.err"; then
    echo "ok $n - -$v: the library's call named by line and variable"
  else
    echo "not ok $n - -$v: stderr lacks: $want ... $want2"
    sed 's/^/#   /' "$W/$v.err"
  fi
  n=$((n + 1))
done
# Without -g: libnog.so+0xOFF, which addr2line -e libg.so (the same code
# with a line table) takes to lib.c:6.
off=
if build_run nog "-g0"; then
  off=$(sed -n 's/.*omp_target_free at libnog\.so+\(0x[0-9a-f]*\): .*/\1/p' "$W/nog.err")
fi
line=
[ -z "$off" ] || line=$(addr2line -e "$W/libg.so" "$off" 2>/dev/null)
case $line in
  */lib.c:6*) echo "ok 3 - without -g: libnog.so+$off, addr2line's lib.c:6" ;;
  *) echo "not ok 3 - without -g: offset '$off', addr2line says '$line'"
     sed 's/^/#   /' "$W/nog.err" ;;
esac
exit 0
