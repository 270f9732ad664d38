#!/bin/sh
# `make bench`: build tests/bench/bench.c with clang 14 once, run it under
# LLVM 14's runtime (its x86_64 plugin) and under ompemu (emu device), and
# print each figure with the ratio.  Time figures: ratio = LLVM / ompemu
# (above 1: ompemu is faster).  Bandwidth: ratio = ompemu / LLVM, and the
# round trip is also compared with plain memcpy.
set -e
builddir=$1 srcdir=$2
clang=${CLANG14:-clang-14}
command -v "$clang" >/dev/null 2>&1 || { echo "bench: clang-14 not installed" >&2; exit 1; }
out="$builddir/tests/bench"
mkdir -p "$out"
"$clang" -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -pthread \
  "$srcdir/tests/bench/bench.c" -o "$out/bench"
# Mandatory offload: a plugin that failed to load must not be measured as
# the host fallback.
export OMP_TARGET_OFFLOAD=mandatory
"$out/bench" ${BENCH_SCALE:-1} > "$out/llvm14.txt"
"$builddir/ompemu-run" "$out/bench" ${BENCH_SCALE:-1} > "$out/ompemu.txt"
# Declare target indirect: ns per __kmpc_target_translate_fptr with 10 000
# entries (ompemu only: LLVM 14 has no such table).  gcc + ompemu-wrap.
cc=${CC:-cc}
fb="$out/fptr"
mkdir -p "$fb"
if sh "$srcdir/tests/lowered/fptr/gen.sh" 10000 f mix "$fb" &&
   $cc -O2 -I"$srcdir/include" -shared -fPIC "$srcdir/tests/bench/fptr_dev.c" \
     "$fb/f_funcs.c" "$fb/f_entries.c" -o "$fb/dev.so" &&
   "$builddir/ompemu-wrap" -o "$fb/wrap.o" "$fb/dev.so" &&
   $cc -O2 -I"$srcdir/include" "$srcdir/tests/bench/fptr_host.c" "$fb/f_funcs.c" \
     "$fb/f_entries.c" "$fb/wrap.o" -L"$builddir/.libs" -lomptarget \
     -Wl,-rpath,"$builddir/.libs" -o "$fb/fptr_bench"; then
  OMPEMU_PLUGINS=emu "$builddir/ompemu-run" "$fb/fptr_bench" >> "$out/ompemu.txt"
else
  echo "bench: could not build the translation benchmark" >&2
fi
awk '
  FNR == NR { llvm[$1] = $2; unit[$1] = $3; next }
  { emu[$1] = $2; unit[$1] = $3; order[++n] = $1 }
  END {
    printf "%-22s %14s %14s %8s\n", "figure", "LLVM 14", "ompemu", "ratio"
    for (i = 1; i <= n; i++) {
      k = order[i]; u = unit[k]
      if (!(k in llvm)) { printf "%-22s %14s %11.1f %s %8s\n", k, "-", emu[k], u, "-"; continue }
      if (u == "GB/s") r = emu[k] / llvm[k]; else r = llvm[k] / emu[k]
      printf "%-22s %11.2f %s %11.2f %s %7.2fx\n", k, llvm[k], u, emu[k], u, r
    }
    if (("roundtrip_256MiB" in emu) && ("memcpy_256MiB" in emu))
      printf "ompemu round trip vs memcpy: %.0f%%\n", 100 * emu["roundtrip_256MiB"] / emu["memcpy_256MiB"]
    printf "(time rows: ratio = LLVM/ompemu, >1 means ompemu is faster; GB/s rows: ompemu/LLVM)\n"
  }' "$out/llvm14.txt" "$out/ompemu.txt"
