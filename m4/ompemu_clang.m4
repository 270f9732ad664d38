# OMPEMU_FIND_CLANG14: locate clang 14 and LLVM 14's runtime for the tests
# that compile real OpenMP offload programs.  Absent: those tests are skipped
# with a visible reason.
AC_DEFUN([OMPEMU_FIND_CLANG14], [
  AC_ARG_VAR([CLANG14], [clang 14 driver used by tests/clang (default: clang-14)])
  AC_PATH_PROGS([CLANG14], [clang-14], [])
  AC_ARG_VAR([LLVM14_LIBDIR], [LLVM 14 runtime directory (default: /usr/lib/llvm-14/lib)])
  AS_IF([test -z "$LLVM14_LIBDIR"], [LLVM14_LIBDIR=/usr/lib/llvm-14/lib])
  AS_IF([test -n "$CLANG14" && test -f "$LLVM14_LIBDIR/libomptarget.so"],
    [ompemu_clang_summary="yes ($CLANG14, $LLVM14_LIBDIR)"],
    [ompemu_clang_summary="no (apt-get install clang-14 libomp-14-dev)"])
  AM_CONDITIONAL([HAVE_CLANG14], [test -n "$CLANG14"])
])
