#!/bin/sh
# Run ompemu's cuda plugin on a real NVIDIA GPU (for a person with one; CI
# has no GPU and uses tests/fake-cuda instead).  TAP output.
#
#   tests/gpu/run-cuda.sh [BUILDDIR]
#
# BUILDDIR is an ompemu build tree configured with CUDA (default: the
# current directory, or $OMPEMU_BUILDDIR).  It needs clang-14 and
# libomp-14-dev (the nvptx device runtime bitcode), a CUDA toolkit whose
# ptxas clang can drive (CUDA_PATH, default /usr/local/cuda) and the NVIDIA
# driver (libcuda.so.1, nvidia-smi).
#
# Steps: (1) the plugin finds the GPU; (2) every tests/clang program that
# is plain C is compiled for nvptx64 (sm_XX from nvidia-smi, or ARCH=sm_XX)
# and run with OMPEMU_PLUGINS=cuda and OMP_TARGET_OFFLOAD=mandatory (no
# silent host fallback), checking its exit status; with LLVM_TOO=1 the same
# binary also runs on LLVM 14's own runtime and cuda plugin, for comparison.
# Programs that only make sense on the emulated device (fixed addresses,
# multi-device counts) carry "SKIP-MODE-cuda" or are listed in EMU_ONLY.
# (3) `make bench`'s rows on the GPU: tests/bench/bench.c built once by
# clang-14 for $ARCH and run in this one run on LLVM 14's runtime and cuda
# plugin, then on ompemu's (OMPEMU_PLUGINS=cuda), printed as make bench
# prints them (empty launch, launch with a 4 KiB map(tofrom:), enter/exit,
# update with 20 000 live mappings, 256 MiB round trip, 8 host threads).
# Environment: ARCH, CUDA_PATH, CLANG14, LLVM14_LIBDIR, CUDA_TESTS (names to
# run, default all), CUDA_TEST_TIMEOUT (seconds, default 60),
# COMPILE_ONLY=1 (no GPU needed: only check that the programs compile),
# BENCH=0 (no benchmark), BENCH_ONLY=1 (only the benchmark), BENCH_SCALE
# (its iterations, default 1), BENCH_TIMEOUT (seconds per run, 600).
set -u
B=${1:-${OMPEMU_BUILDDIR:-$(pwd)}}
B=$(cd "$B" && pwd) || exit 1
S=$(cd "$(dirname "$0")/../.." && pwd)
CLANG14=${CLANG14:-clang-14}
CUDA_PATH=${CUDA_PATH:-/usr/local/cuda}
LLVM14_LIBDIR=${LLVM14_LIBDIR:-/usr/lib/llvm-14/lib}
TIMEOUT=${CUDA_TEST_TIMEOUT:-60}
W=$B/tests/gpu/work
EMU_ONLY="addresses multi_device info_trace usm"

skip_all() { echo "1..0 # SKIP $*"; exit 0; }
[ -x "$B/ompemu-run" ] || skip_all "no ompemu-run in $B (build ompemu first)"
[ -f "$B/.libs/libomptarget.rtl.cuda.so" ] ||
  skip_all "no cuda plugin in $B (configure --with-cuda=DIR)"
command -v "$CLANG14" >/dev/null 2>&1 || skip_all "no $CLANG14"

if [ -z "${ARCH:-}" ]; then
  if [ "${COMPILE_ONLY:-0}" = 1 ]; then
    ARCH=sm_80
  else
    cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1)
    [ -n "$cc" ] || skip_all "no NVIDIA GPU (nvidia-smi --query-gpu=compute_cap failed)"
    ARCH=sm_$(echo "$cc" | tr -d '. ')
  fi
fi
# clang 14 ships device runtimes up to sm_86; a newer GPU of the same
# major runs the highest one of its major.
if [ ! -f "$LLVM14_LIBDIR/libomptarget-new-nvptx-$ARCH.bc" ]; then
  major=$(echo "$ARCH" | sed 's/sm_\([0-9]*\)[0-9]$/\1/')
  best=$(ls "$LLVM14_LIBDIR"/libomptarget-new-nvptx-sm_"$major"?.bc 2>/dev/null |
    sed 's/.*-\(sm_[0-9]*\)\.bc/\1/' | sort -V | tail -1)
  [ -n "$best" ] || skip_all "clang 14 has no device runtime for $ARCH"
  echo "# $ARCH: using clang 14's $best device runtime"
  ARCH=$best
fi

mkdir -p "$W" && cd "$W" || exit 1
progs=
[ "${BENCH_ONLY:-0}" = 1 ] && CUDA_TESTS=none
for f in "$S"/tests/clang/*.c; do
  name=$(basename "$f" .c)
  if [ -n "${CUDA_TESTS:-}" ] && ! echo " $CUDA_TESTS " | grep -q " $name "; then
    continue
  fi
  progs="$progs $name"
done
count=$(echo $progs | wc -w)
[ "${BENCH:-1}" = 1 ] && count=$((count + 1))
if [ "${COMPILE_ONLY:-0}" = 1 ]; then
  echo "1..$count"
else
  echo "1..$((count + 1))"
fi
echo "# arch $ARCH, build $B"
n=0

if [ "${COMPILE_ONLY:-0}" != 1 ]; then
  # (1) the plugin sees the GPU: load it and ask (a program without
  # target regions would not make the runtime load any plugin).
  cat >probe.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(int c, char **v) {
  void *h = dlopen(v[1], RTLD_NOW);
  if (!h) { printf("%s\n", dlerror()); return 2; }
  int (*n)(void) = (int (*)(void))dlsym(h, "__tgt_rtl_number_of_devices");
  printf("devices %d\n", n ? n() : -1);
  return 0;
}
C
  cc -o probe probe.c -ldl >discover.out 2>&1 &&
    OMPEMU_TRACE=1 ./probe "$B/.libs/libomptarget.rtl.cuda.so" >>discover.out 2>&1
  n=$((n + 1))
  if grep -q "^cuda: driver .*: [1-9][0-9]* device(s)" discover.out; then
    echo "ok $n - cuda plugin: $(grep '^cuda: driver' discover.out)"
  else
    echo "not ok $n - cuda plugin found no GPU"
    sed 's/^/# /' discover.out
  fi
fi

for name in $progs; do
  n=$((n + 1))
  src=$S/tests/clang/$name.c
  extra=$(sed -n 's@^// CFLAGS: @@p' "$src" | tr '\n' ' ')
  runenv=$(sed -n 's@^// RUN-ENV: @@p' "$src" | tr '\n' ' ')
  want=$(sed -n 's@^// EXPECT-EXIT: @@p' "$src" | head -1)
  skip=$(sed -n 's@^// SKIP-MODE-cuda: @@p' "$src" | head -1)
  if [ -z "$skip" ] && echo " $EMU_ONLY " | grep -q " $name "; then
    skip="checks the emulated device's own behaviour"
  fi
  if ! "$CLANG14" -fopenmp -fopenmp-targets=nvptx64-nvidia-cuda \
      -Xopenmp-target -march="$ARCH" --cuda-path="$CUDA_PATH" \
      -Wno-unknown-cuda-version -O1 -I"$S/tests/clang" -I"$S/include" $extra \
      "$src" -o "$name" >"$name.build" 2>&1; then
    echo "not ok $n - $name: does not compile for $ARCH"
    sed 's/^/# /' "$name.build" | head -20
    continue
  fi
  if [ "${COMPILE_ONLY:-0}" = 1 ]; then
    echo "ok $n - $name compiles for $ARCH"
    continue
  fi
  if [ -n "$skip" ]; then
    echo "ok $n # SKIP $name: $skip"
    continue
  fi
  env $runenv OMPEMU_PLUGINS=cuda OMP_TARGET_OFFLOAD=mandatory \
    timeout "$TIMEOUT" "$B/ompemu-run" "./$name" >"$name.out" 2>&1
  st=$?
  line="$name on $ARCH (exit $st, want ${want:-0})"
  if [ "${LLVM_TOO:-0}" = 1 ]; then
    env $runenv OMP_TARGET_OFFLOAD=mandatory LD_LIBRARY_PATH="$LLVM14_LIBDIR" \
      timeout "$TIMEOUT" "./$name" >"$name.llvm" 2>&1
    line="$line; LLVM 14's runtime: exit $?"
  fi
  if [ "$st" -eq "${want:-0}" ]; then
    echo "ok $n - $line"
  else
    echo "not ok $n - $line"
    sed 's/^/# /' "$name.out" | tail -20
  fi
done
# (3) make bench's rows, LLVM 14 and ompemu on the same binary.
if [ "${BENCH:-1}" = 1 ]; then
  n=$((n + 1))
  if ! "$CLANG14" -O2 -fopenmp -fopenmp-targets=nvptx64-nvidia-cuda \
      -Xopenmp-target -march="$ARCH" --cuda-path="$CUDA_PATH" \
      -Wno-unknown-cuda-version -pthread "$S/tests/bench/bench.c" \
      -o bench >bench.build 2>&1; then
    echo "not ok $n - bench: tests/bench/bench.c does not compile for $ARCH"
    sed 's/^/# /' bench.build | head -20
  elif [ "${COMPILE_ONLY:-0}" = 1 ]; then
    echo "ok $n - bench compiles for $ARCH"
  else
    BT=${BENCH_TIMEOUT:-600}
    OMP_TARGET_OFFLOAD=mandatory LD_LIBRARY_PATH="$LLVM14_LIBDIR" \
      timeout "$BT" ./bench ${BENCH_SCALE:-1} >bench.llvm14 2>bench.llvm14.err
    st_llvm=$?
    OMPEMU_PLUGINS=cuda OMP_TARGET_OFFLOAD=mandatory \
      timeout "$BT" "$B/ompemu-run" ./bench ${BENCH_SCALE:-1} >bench.ompemu 2>bench.ompemu.err
    st_emu=$?
    sh "$S/tests/gpu/bench-table.sh" bench.llvm14 bench.ompemu | sed 's/^/# /'
    if [ $st_emu -eq 0 ] && grep -q "^launch_8_threads " bench.ompemu; then
      echo "ok $n - bench on $ARCH: ompemu's cuda plugin against LLVM 14's (exit $st_emu, LLVM 14: $st_llvm)"
    else
      echo "not ok $n - bench on $ARCH: ompemu run failed (exit $st_emu, LLVM 14: $st_llvm)"
      sed 's/^/# /' bench.ompemu.err | tail -20
    fi
  fi
fi
exit 0
