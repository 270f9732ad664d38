#!/bin/sh
# TAP test of the build-tree ompemu-run launcher: --help lists every
# OMPEMU_* variable of the README table, --version, errors for a missing or
# non-executable program, LD_LIBRARY_PATH puts ompemu's .libs first, and
# the exit status of the program is passed through.
B=${OMPEMU_BUILDDIR:-.}
S=${OMPEMU_SRCDIR:-.}
RUN=$B/ompemu-run
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=1; echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; fi; }

echo "1..8"
help=$("$RUN" --help 2>&1)
missing=
for v in $(grep -o '^| `OMPEMU_[A-Z_]*`' "$S/README.md" | tr -d '|` '); do
  case "$help" in *"$v"*) ;; *) missing="$missing $v" ;; esac
done
check "--help lists every README OMPEMU_* variable${missing:+ (missing:$missing)}" '[ -z "$missing" ]'
check "--help names LIBOMPTARGET_INFO and OMP_TARGET_OFFLOAD" \
  'case "$help" in *LIBOMPTARGET_INFO*OMP_TARGET_OFFLOAD*|*OMP_TARGET_OFFLOAD*LIBOMPTARGET_INFO*) true ;; *) false ;; esac'
ver=$("$RUN" --version)
check "--version prints the package version" 'case "$ver" in "ompemu-run (ompemu) "[0-9]*) true ;; *) false ;; esac'
err=$("$RUN" ./no-such-program-here 2>&1); rc=$?
check "missing program: status 127 and a clear message" \
  '[ $rc -eq 127 ] && case "$err" in *"program '"'"'./no-such-program-here'"'"' not found"*) true ;; *) false ;; esac'
"$RUN" "$S" >/dev/null 2>&1; rc=$?
check "a directory is refused with status 126" '[ $rc -eq 126 ]'
first=$(LD_LIBRARY_PATH=/somewhere "$RUN" /bin/sh -c 'echo "$LD_LIBRARY_PATH"')
check "LD_LIBRARY_PATH starts with the build tree's .libs, keeps the rest" \
  '[ "$first" = "$B/.libs:/somewhere" ]'
"$RUN" /bin/sh -c 'exit 7'; rc=$?
check "the program's exit status is passed through" '[ $rc -eq 7 ]'
"$RUN" sh -c 'exit 0'; rc=$?
check "a program found on PATH runs" '[ $rc -eq 0 ]'
exit $fail
