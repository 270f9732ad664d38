#!/bin/sh
# TAP test: ompemu-run refuses a program that needs libomptarget exports
# ompemu's runtime lacks, and says why for each (src/tools/ompemu-run.in,
# missing_why; docs/abi-clang22.md §11, item 12).  The program is linked
# against a stub libomptarget.so that defines them; at run time the name
# resolves to ompemu's runtime.
B=${OMPEMU_BUILDDIR:-.}
RUN=$B/ompemu-run
CC=${CC:-cc}
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=1; echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; fi; }

w=$(mktemp -d "${TMPDIR:-/tmp}/ompemu-run-missing.XXXXXX") || exit 99
trap 'rm -rf "$w"' EXIT
echo 'VERS1.0 { global: *; };' >"$w/vers"
cat >"$w/stub.c" <<'C'
void __tgt_target_kernel(void) {}
void llvmLaunchKernel(void) {}
void __tgt_target_kernel_replay(void) {}
void omp_get_mapped_ptr(void) {}
C
cat >"$w/prog.c" <<'C'
void __tgt_target_kernel(void);
void llvmLaunchKernel(void);
void __tgt_target_kernel_replay(void);
void omp_get_mapped_ptr(void);
int main(int argc, char **argv) {
  (void)argv;
  if (argc > 5) { /* never: only the references matter */
    __tgt_target_kernel(); llvmLaunchKernel(); __tgt_target_kernel_replay();
    omp_get_mapped_ptr();
  }
  return 0;
}
C
if ! $CC -shared -fPIC -Wl,-soname,libomptarget.so -Wl,--version-script="$w/vers" \
       "$w/stub.c" -o "$w/libomptarget.so" >"$w/log" 2>&1 ||
   ! $CC "$w/prog.c" -L"$w" -lomptarget -o "$w/prog" >>"$w/log" 2>&1; then
  echo "1..0 # SKIP cannot build the test program: $(head -n 1 "$w/log")"
  exit 0
fi
echo "1..4"
err=$("$RUN" "$w/prog" 2>&1); rc=$?
check "refused with status 125 (got $rc)" '[ $rc -eq 125 ]'
check "the refusal names the missing symbols" \
  'case "$err" in *"does not provide, so"*) true ;; *) false ;; esac'
check "the others say why they will not come" \
  'case "$err" in *"llvmLaunchKernel is the CUDA-style kernel launch of -foffload-via-llvm, not OpenMP"*) true ;; *) false ;; esac &&
   case "$err" in *"__tgt_target_kernel_replay is for LLVM'"'"'s kernel record-replay tool only"*) true ;; *) false ;; esac'
check "exports ompemu has are not listed" \
  'case "$err" in *omp_get_mapped_ptr*|*"__tgt_target_kernel,"*|*"__tgt_target_kernel is"*) false ;; *) true ;; esac'
[ $fail -eq 0 ] || printf '# %s\n' "$err"
exit $fail
