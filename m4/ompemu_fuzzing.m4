# OMPEMU_ENABLE_FUZZING: --enable-fuzzing builds the libFuzzer harness for the
# emu device's ELF loader; it needs clang (CLANG_FUZZ, default clang-14).
AC_DEFUN([OMPEMU_ENABLE_FUZZING], [
  AC_ARG_ENABLE([fuzzing],
    [AS_HELP_STRING([--enable-fuzzing], [build the loader fuzzer with clang's libFuzzer])],
    [], [enable_fuzzing=no])
  AC_ARG_VAR([CLANG_FUZZ], [clang used to build the fuzzer (default: clang-14)])
  ompemu_fuzz_summary=no
  AS_IF([test "$enable_fuzzing" = yes], [
    AC_PATH_PROGS([CLANG_FUZZ], [clang-14 clang], [no])
    AS_IF([test "$CLANG_FUZZ" = no], [AC_MSG_ERROR([--enable-fuzzing needs clang (apt-get install clang-14)])])
    ompemu_fuzz_summary="yes ($CLANG_FUZZ)"])
  AM_CONDITIONAL([ENABLE_FUZZING], [test "$enable_fuzzing" = yes])
])
