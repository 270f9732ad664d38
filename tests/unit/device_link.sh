#!/bin/sh
# The device-link names of flang 22's kernels in ompemu's libomptarget.so
# (src/runtime/abi/device_link.c): all 15 are exported at VERS1.0, as
# flang's device link (--no-undefined ... -lomptarget) and the image's
# versioned imports need; and called on the host, each reports "called
# outside a device" through the runtime's error path and aborts.
set -u
: "${OMPEMU_BUILDDIR:?}"
LIB=$OMPEMU_BUILDDIR/.libs/libomptarget.so
W=$OMPEMU_BUILDDIR/tests/unit/work-device-link
CC=${CC:-cc}
mkdir -p "$W" || { echo "Bail out! cannot create $W"; exit 1; }
names="__kmpc_target_init __kmpc_target_deinit __kmpc_parallel_60"
for k in for_static_loop distribute_static_loop distribute_for_static_loop; do
  for t in _4 _4u _8 _8u; do names="$names __kmpc_$k$t"; done
done
echo "1..3"

missing=
exports=$(nm -D --defined-only "$LIB" 2>/dev/null)
for n in $names; do
  echo "$exports" | grep -q " T $n@@VERS1.0\$" || missing="$missing $n"
done
if [ -z "$missing" ]; then echo "ok 1 - the 15 names are exported at VERS1.0"
else echo "not ok 1 - not exported at VERS1.0:$missing"; fi

cat >"$W/host.c" <<'EOC'
#include <stdint.h>
#include <string.h>
int32_t __kmpc_target_init(void *, void *);
void __kmpc_for_static_loop_8u(void *, void *, void *, uint64_t, uint64_t,
                               uint64_t, uint8_t);
int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "loop") == 0)
    __kmpc_for_static_loop_8u(0, 0, 0, 10, 1, 0, 0);
  return __kmpc_target_init(0, 0) == -1 ? 3 : 4;
}
EOC
# An --enable-sanitizers build's library needs ASan's runtime loaded first:
# the program links it, as any program built with -fsanitize does.
san=
readelf -d "$LIB" 2>/dev/null | grep -q libasan && san=-fsanitize=address,undefined
if ! "$CC" $san -o "$W/host" "$W/host.c" -L"${LIB%/*}" -Wl,-rpath,"${LIB%/*}" -lomptarget \
     >"$W/build.log" 2>&1; then
  echo "not ok 2 - a host program calling them does not link"
  sed 's/^/#   /' "$W/build.log"
  echo "not ok 3 - (not built)"
  exit 0
fi
n=2
for how in init loop; do
  OMP_TARGET_OFFLOAD=disabled "$W/host" "$how" >"$W/out" 2>"$W/err"
  rc=$?
  want=__kmpc_target_init
  [ "$how" = loop ] && want=__kmpc_for_static_loop_8u
  if [ $rc -eq 134 ] && grep -q "fatal error 1: $want called outside a device" "$W/err"; then
    echo "ok $n - $want on the host aborts with one error"
  else
    echo "not ok $n - $want on the host: exit $rc"
    sed 's/^/#   /' "$W/err"
  fi
  n=$((n + 1))
done
exit 0
