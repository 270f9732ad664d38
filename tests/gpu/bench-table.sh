#!/bin/sh
# Print `make bench`'s table for two runs of tests/bench/bench.c on a GPU:
#   tests/gpu/bench-table.sh LLVM14.txt OMPEMU.txt
# Each file holds the program's "name value unit" lines.  Time rows: ratio
# = LLVM 14 / ompemu (above 1: ompemu is faster); GB/s rows: ompemu / LLVM
# 14.  A row missing from one run (that run failed) shows "-".
awk '
  FNR == NR { llvm[$1] = $2; unit[$1] = $3; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }; next }
  { emu[$1] = $2; unit[$1] = $3; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
  END {
    printf "%-22s %16s %16s %8s\n", "figure", "LLVM 14", "ompemu", "ratio"
    for (i = 1; i <= n; i++) {
      k = order[i]; u = unit[k]
      l = (k in llvm) ? sprintf("%11.2f %-4s", llvm[k], u) : sprintf("%16s", "-")
      e = (k in emu) ? sprintf("%11.2f %-4s", emu[k], u) : sprintf("%16s", "-")
      r = "-"
      if ((k in llvm) && (k in emu) && llvm[k] > 0 && emu[k] > 0)
        r = sprintf("%7.2fx", u == "GB/s" ? emu[k] / llvm[k] : llvm[k] / emu[k])
      printf "%-22s %s %s %8s\n", k, l, e, r
    }
    printf "(time rows: ratio = LLVM/ompemu, >1 means ompemu is faster; GB/s rows: ompemu/LLVM)\n"
  }' "$1" "$2"
