#!/bin/sh
# For a person with an AMD GPU and ROCm's HSA runtime (libhsa-runtime64.so.1,
# /dev/kfd): check ompemu's hsa plugin on the real device.  Prints TAP.
#   tests/gpu/run-hsa.sh [BUILDDIR]      (default: $OMPEMU_BUILDDIR or .)
# Needs clang-14 with the amdgcn device runtime (Debian: libomp-14-dev ships
# /usr/lib/llvm-14/lib/libomptarget-new-amdgpu-gfx*.bc).  The GPU's ISA is
# taken from the plugin's own trace ("hsa: device 0: agent ... gfx906");
# set OMPEMU_GPU_ARCH=gfx90a to override.  Nothing here runs in `make check`.
# Test 7 prints `make bench`'s rows on the GPU: tests/bench/bench.c built
# once by clang-14 for the GPU's ISA, run in this one run on LLVM 14's
# runtime and amdgpu plugin, then on ompemu's (OMPEMU_PLUGINS=hsa).
# BENCH=0 skips it; BENCH_SCALE, BENCH_TIMEOUT (seconds per run, 600).
set -u
B=${1:-${OMPEMU_BUILDDIR:-.}}
B=$(cd "$B" && pwd) || exit 1
S=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
CLANG=${CLANG14:-clang-14}
W=${TMPDIR:-/tmp}/ompemu-gpu-hsa.$$
PLUGIN=$B/.libs/libomptarget.rtl.hsa.so
n=0
fail=0
mkdir -p "$W" && cd "$W" || exit 1
trap 'rm -rf "$W"' EXIT

ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=1; echo "not ok $n - $1"; sed 's/^/# /' log | tail -30; }
check() { if [ "$2" -eq 0 ]; then ok "$1"; else notok "$1"; fi; }

echo "1..7"
[ -e /dev/kfd ] || echo "# warning: no /dev/kfd: is the amdgpu kernel driver loaded?"
[ -f "$PLUGIN" ] || { echo "Bail out! $PLUGIN not built (configure found no hsa/hsa.h?)"; exit 1; }

# 1. The plugin finds the GPU agents.
cat >probe.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(int c, char **v) {
  void *h = dlopen(v[1], RTLD_NOW);
  if (!h) { printf("%s\n", dlerror()); return 2; }
  int (*n)(void) = (int (*)(void))dlsym(h, "__tgt_rtl_number_of_devices");
  printf("devices %d\n", n());
  return 0;
}
C
cc -o probe probe.c -ldl >log 2>&1 && OMPEMU_TRACE=1 ./probe "$PLUGIN" >>log 2>&1 &&
  grep -q "^devices [1-9]" log
check "hsa plugin: at least one GPU agent (see the trace below for the list)" $?
grep "^hsa:" log | sed 's/^/# /'
arch=${OMPEMU_GPU_ARCH:-$(sed -n 's/^hsa: device 0: agent 0x[0-9a-f]* \(gfx[0-9a-f]*\).*/\1/p' log | head -1)}
[ -n "$arch" ] || { echo "Bail out! no GPU ISA found; set OMPEMU_GPU_ARCH"; exit 1; }
echo "# GPU ISA: $arch"

# 2-5. clang-14 programs run through ompemu's runtime on the hsa plugin only.
cat >vadd.c <<'C'
#include <omp.h>
#include <stdio.h>
#define N 100000
static double a[N], b[N], c[N];
int main(void) {
  int on_dev = 0, bad = 0;
  for (int i = 0; i < N; i++) { a[i] = i; b[i] = 2 * i; }
#pragma omp target teams distribute parallel for map(to: a, b) map(from: c) map(tofrom: on_dev)
  for (int i = 0; i < N; i++) {
    c[i] = a[i] + b[i];
    if (i == 0) on_dev = !omp_is_initial_device();
  }
  for (int i = 0; i < N; i++) bad += c[i] != 3.0 * i;
  printf("devices %d on_device %d bad %d\n", omp_get_num_devices(), on_dev, bad);
  return !(on_dev && bad == 0);
}
C
cat >global.c <<'C'
#include <stdio.h>
#pragma omp declare target
int g = 1;
int twice(int x) { return 2 * x; }
#pragma omp end declare target
int main(void) {
  int r = 0;
  g = 21;
#pragma omp target update to(g)
#pragma omp target map(from: r)
  { r = twice(g); g = 5; }
#pragma omp target update from(g)
  printf("r %d g %d\n", r, g);
  return !(r == 42 && g == 5);
}
C
cat >teams.c <<'C'
#include <omp.h>
#include <stdio.h>
int main(void) {
  int teams = 0, threads = 0;
#pragma omp target teams num_teams(8) thread_limit(64) map(tofrom: teams, threads)
  {
#pragma omp parallel
    if (omp_get_team_num() == 0 && omp_get_thread_num() == 0) {
      teams = omp_get_num_teams();
      threads = omp_get_num_threads();
    }
  }
  printf("teams %d threads %d\n", teams, threads);
  return !(teams >= 1 && teams <= 8 && threads >= 1 && threads <= 64);
}
C
cat >async.c <<'C'
#include <stdio.h>
#define N 4096
int main(void) {
  static int x[N];
  int bad = 0;
  for (int i = 0; i < N; i++) x[i] = i;
#pragma omp target teams distribute parallel for map(tofrom: x) nowait
  for (int i = 0; i < N; i++) x[i] += 1;
#pragma omp taskwait
  for (int i = 0; i < N; i++) bad += x[i] != i + 1;
  printf("bad %d\n", bad);
  return bad != 0;
}
C
run() { # NAME DESCRIPTION
  "$CLANG" -O1 -fopenmp -fopenmp-targets=amdgcn-amd-amdhsa \
    -Xopenmp-target=amdgcn-amd-amdhsa -march="$arch" "$1.c" -o "$1" >log 2>&1 &&
    OMPEMU_PLUGINS=hsa OMPEMU_TRACE=1 "$B/ompemu-run" "./$1" >>log 2>&1 &&
    grep -q "hsa: device 0: launch" log
  check "$2" $?
  grep -v "^ompemu: device" log | grep -v "^hsa: device 0: launch" | tail -3 | sed 's/^/# /'
}
run vadd "vector add on the GPU: values, omp_is_initial_device() false"
run global "declare target global and function, target update to/from"
run teams "num_teams/thread_limit reach the device"
run async "target nowait + taskwait (async queue and synchronize)"

# 6. The same vector add on LLVM 14's own runtime, for comparison.
if [ -f /usr/lib/llvm-14/lib/libomptarget.rtl.amdgpu.so ]; then
  LD_LIBRARY_PATH=/usr/lib/llvm-14/lib ./vadd >log 2>&1
  check "reference: LLVM 14's runtime and amdgpu plugin run the same binary" $?
else
  n=$((n + 1)); echo "ok $n # SKIP no LLVM 14 amdgpu plugin"
fi
# 7. make bench's rows, LLVM 14 and ompemu on the same binary.
if [ "${BENCH:-1}" != 1 ]; then
  n=$((n + 1)); echo "ok $n # SKIP BENCH=0"
elif ! "$CLANG" -O2 -fopenmp -fopenmp-targets=amdgcn-amd-amdhsa \
    -Xopenmp-target=amdgcn-amd-amdhsa -march="$arch" -pthread \
    "$S/tests/bench/bench.c" -o bench >log 2>&1; then
  notok "bench: tests/bench/bench.c does not compile for $arch"
else
  BT=${BENCH_TIMEOUT:-600}
  : >bench.llvm14
  if [ -f /usr/lib/llvm-14/lib/libomptarget.rtl.amdgpu.so ]; then
    OMP_TARGET_OFFLOAD=mandatory LD_LIBRARY_PATH=/usr/lib/llvm-14/lib \
      timeout "$BT" ./bench ${BENCH_SCALE:-1} >bench.llvm14 2>/dev/null
  fi
  OMPEMU_PLUGINS=hsa OMP_TARGET_OFFLOAD=mandatory \
    timeout "$BT" "$B/ompemu-run" ./bench ${BENCH_SCALE:-1} >bench.ompemu 2>log
  st=$?
  sh "$S/tests/gpu/bench-table.sh" bench.llvm14 bench.ompemu | sed 's/^/# /'
  [ $st -eq 0 ] && grep -q "^launch_8_threads " bench.ompemu
  check "bench on $arch: ompemu's hsa plugin against LLVM 14's amdgpu plugin" $?
fi
exit $fail
