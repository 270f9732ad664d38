# Sourced by tests/clang/run.sh and tests/clang/matrix.sh: the verdict on
# a run (expect_outcome, at the end), and for their mode
# "check" (ompemu-run --check, docs/check.md), whose point is that correct
# programs get no finding.  A program that provokes findings or errors on
# purpose says which:
#   // CHECK-FINDING: text   a finding containing text is expected
#   // CHECK-ERRORS: reason  errors are provoked on purpose (they count)
# (Whether each kind of bug is found is tests/check's business: a
# CHECK-FINDING that needs the emu plugin's extensions is not required.)
# check_findings SRC OUTBASE: 0 when every finding in OUTBASE.err ("ompemu:
# check: ..." and "emu: error: check: ..." lines, the summary left out) is
# one SRC expects; otherwise the reason in OUTBASE.why.
check_findings() {
  sed -n 's|^// CHECK-FINDING: *||p' "$1" > "$2.wanted"
  grep -E '^(ompemu: check: |emu: error: check: )' "$2.err" |
    grep -vE '^ompemu: check: (no findings|[0-9]+ findings?[ ;]|stopped at a fault)' > "$2.found"
  while IFS= read -r cf_line; do
    printf '%s\n' "$cf_line" | grep -qF -f "$2.wanted" ||
      { echo "unexpected finding: $cf_line" >"$2.why"; return 1; }
  done < "$2.found"
  # Errors without findings: expected only by a program that says so, or
  # that expects to fail anyway (EXPECT-EXIT).
  if [ ! -s "$2.found" ] && grep -q '^ompemu: check: no findings, but' "$2.err" &&
     ! grep -qE '^// (CHECK-ERRORS|EXPECT-EXIT):' "$1"; then
    echo "errors reported: $(grep -m1 'no findings, but' "$2.err")" >"$2.why"
    return 1
  fi
  return 0
}

# check_found OUTBASE: the run found something (its exit status is then
# the checking mode's, 99, where the program's own would be 0): the exit
# summary, or the line that ends a run stopped by a fault in device code.
check_found() {
  grep -qE '^ompemu: check: ([0-9]+ findings?|no findings, but|stopped at a fault)' "$1.err"
}

# expect_outcome SRC OUTBASE MODE RC: does the run that ended with status
# RC (output in OUTBASE.out / .err, and OUTBASE.trace where the runner
# sends ompemu's trace to a file) do what SRC's EXPECT-EXIT,
# EXPECT-STDERR (stderr or that trace file) and EXPECT-STDOUT say, or, in mode check, find only what
# it expects (after a finding only the status 99 is looked at)?  0: yes;
# 1: no (the reason in OUTBASE.why); 2: yes, ended by an expected finding.
# Uses the runner's `directive`.
expect_outcome() {
  eo_want=$(directive "$1" EXPECT-EXIT); eo_want=${eo_want:-0}
  if [ "$3" = check ]; then
    check_findings "$1" "$2" || return 1
    if check_found "$2"; then
      [ "$eo_want" = 0 ] && eo_want=99
      [ "$4" = "$eo_want" ] || { echo "exit status $4, expected $eo_want" >"$2.why"; return 1; }
      return 2
    fi
  fi
  if [ "$4" != "$eo_want" ]; then
    echo "exit status $4, expected $eo_want" >"$2.why"; return 1
  fi
  directive "$1" EXPECT-STDERR | while IFS= read -r line; do
    grep -qF -- "$line" "$2.err" || grep -qsF -- "$line" "$2.trace" ||
      { echo "stderr lacks: $line" >"$2.why"; exit 1; }
  done || return 1
  directive "$1" EXPECT-STDOUT | while IFS= read -r line; do
    grep -qF -- "$line" "$2.out" || { echo "stdout lacks: $line" >"$2.why"; exit 1; }
  done || return 1
  return 0
}
