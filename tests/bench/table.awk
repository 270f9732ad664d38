# The table of `make bench` (run.sh): reads the rows file ("KEY KIND
# LABEL...", in table order; KEY "-" with KIND "skip" for a skipped row)
# then the raw figures ("RUNTIME KEY VALUE UNIT", one line per process),
# and prints one line per row: medians under LLVM 14 and ompemu, ratio =
# ompemu / LLVM 14, whether the row meets issue 16's goal, and the spread
# of each runtime's processes (largest / smallest value: the noise).
FNR == NR {
  n_rows++
  key[n_rows] = $1; kind[n_rows] = $2
  $1 = ""; $2 = ""; sub(/^  */, "")
  label[n_rows] = $0
  next
}
{
  k = $1 SUBSEP $2
  if ($3 ~ /^-?[0-9.]+$/) { vals[k] = vals[k] " " $3; nv[k]++ }
  else bad[k] = $3 # timeout, failed
}

function median(k,    a, n, i, j, t) {
  n = split(vals[k], a, " ")
  for (i = 2; i <= n; i++)
    for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
  return n % 2 ? a[(n + 1) / 2] + 0 : (a[n / 2] + a[n / 2 + 1]) / 2
}
# Largest / smallest of the values of K: how far the processes disagree.
function spread(k,    a, n, i, lo, hi) {
  n = split(vals[k], a, " ")
  if (n < 2) return "-"
  lo = hi = a[1] + 0
  for (i = 2; i <= n; i++) { if (a[i] + 0 < lo) lo = a[i] + 0; if (a[i] + 0 > hi) hi = a[i] + 0 }
  return lo > 0 ? sprintf("%.2f", hi / lo) : "-"
}
function fmt(v) {
  if (v >= 1000) return sprintf("%.0f", v)
  if (v >= 100) return sprintf("%.1f", v)
  if (v >= 1) return sprintf("%.2f", v)
  return sprintf("%.3f", v)
}
# The cell of runtime RT for key K: the median, or why there is none (a
# timeout or failure in any run is shown, so a hang is never hidden).
function cell(rt, k) {
  if ((rt SUBSEP k) in bad) return bad[rt SUBSEP k]
  if (!((rt SUBSEP k) in vals)) return "-"
  return fmt(median(rt SUBSEP k))
}

END {
  printf "%-50s %10s %10s %7s  %-9s %s\n", "row", "LLVM 14", "ompemu", "ratio", "goal", "spread"
  for (i = 1; i <= n_rows; i++) {
    k = key[i]
    if (kind[i] == "skip") { printf "%s\n", label[i]; continue }
    # Rows of kind "check": the columns are ompemu and ompemu --check;
    # kind "c22": ompemu running the clang-14 and the clang-22 binary.
    a = kind[i] == "check" || kind[i] == "c22" ? "ompemu" : "llvm14"
    b = kind[i] == "check" ? "check" : kind[i] == "c22" ? "clang22" : "ompemu"
    l = cell(a, k); e = cell(b, k)
    ratio = "-"; goal = "-"
    numeric = l ~ /^[0-9.]+$/ && e ~ /^[0-9.]+$/
    if (numeric && l + 0 > 0 && kind[i] != "info")
      ratio = sprintf("%.2f", median(b SUBSEP k) / median(a SUBSEP k))
    if (kind[i] == "time")
      goal = e ~ /^[0-9.]+$/ && ratio != "-" ? (ratio + 0 <= 0.8 ? "ok" : (ratio + 0 <= 1 ? "miss" : "MISS >1")) : "MISS"
    else if (kind[i] == "frac")
      goal = e ~ /^[0-9.]+$/ ? (e + 0 >= 0.9 ? "ok" : "miss") : "MISS"
    else if (kind[i] == "cpu")
      goal = e ~ /^[0-9.]+$/ ? (e + 0 <= 2 * scale ? "ok" : "miss") : "MISS"
    else if (kind[i] == "paced")
      goal = e ~ /^[0-9.]+$/ ? (e + 0 <= 1.05 * scale ? "ok" : "miss") : "MISS"
    else if (kind[i] == "check")
      goal = ratio != "-" ? (ratio + 0 <= 3 ? "ok" : "MISS >3") : "MISS"
    else if (kind[i] == "c22")
      goal = ratio != "-" ? (ratio + 0 <= 1.2 ? "ok" : "MISS >1.2") : "MISS"
    printf "%-50s %10s %10s %7s  %-9s %s\n", label[i], l, e, ratio, goal,
      spread(a SUBSEP k) "/" spread(b SUBSEP k)
  }
  print "ratio = ompemu / LLVM 14.  Time and CPU rows: lower is better, goal <= 0.8"
  print "(\"MISS >1\": slower than LLVM 14).  GB/s rows: higher is better; the round"
  print "trip's goal is >= 0.9 of memcpy in the same process.  CPU rows: CPU time of"
  print "threads the program did not create (device threads) during 1000 launches"
  print "1 ms apart; goal: at most 2 us per launch.  Wall rows of paced work: goal"
  print "within 5 % of the pace (1 s per BENCH_SCALE).  spread: largest / smallest"
  print "value over the processes, LLVM 14 / ompemu (the machine's noise)."
  print "Rows marked --check: the columns are ompemu and ompemu-run --check, ratio ="
  print "--check / ompemu, goal <= 3 (docs/check.md)."
  print "Rows marked clang 22: the columns are ompemu running the clang-14 binary"
  print "and the clang-22 one (__tgt_target_kernel), ratio = clang 22 / clang 14,"
  print "goal <= 1.2 (one launch path for both)."
}
