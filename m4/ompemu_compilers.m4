# OMPEMU_FIND_COMPILERS: the newer offload compilers the tests build with
# (clang 16, 19, 22 and flang 22, each optional: absent ones are skipped
# with a visible reason), and the libomp that ompemu's pkglibdir offers as
# libomp.so for their links (clang-linker-wrapper links -lomp, and no
# libomp.so is on the default search path on Debian 12).
AC_DEFUN([OMPEMU_FIND_COMPILERS], [
  AC_ARG_VAR([CLANG16], [clang 16 driver for tests/clang (default: clang-16)])
  AC_ARG_VAR([CLANG19], [clang 19 driver for tests/clang (default: clang-19)])
  AC_ARG_VAR([CLANG22], [clang 22 driver for tests/clang (default: clang-22)])
  AC_ARG_VAR([FLANG22], [flang 22 driver for tests/fortran (default: flang-22)])
  AC_PATH_PROGS([CLANG16], [clang-16], [])
  AC_PATH_PROGS([CLANG19], [clang-19], [])
  AC_PATH_PROGS([CLANG22], [clang-22], [])
  AC_PATH_PROGS([FLANG22], [flang-22 flang-new-22], [])
  AC_ARG_VAR([OMPEMU_LLVM_CACHE],
    [where tests/compilers/provision.sh keeps the private LLVM 16/19/22 runtimes (default: ~/.cache/ompemu/llvm)])

  AC_ARG_WITH([libomp],
    [AS_HELP_STRING([--with-libomp=FILE],
      [the libomp.so.5 that ompemu's pkglibdir links as libomp.so for clang 16+ and flang 22 links (default: LLVM 14's)])],
    [OMPEMU_LIBOMP=$withval], [OMPEMU_LIBOMP=])
  AS_IF([test -z "$OMPEMU_LIBOMP"], [
    for ompemu_f in "$LLVM14_LIBDIR/libomp.so.5" /usr/lib/llvm-14/lib/libomp.so.5 \
        /usr/lib/x86_64-linux-gnu/libomp.so.5 /usr/lib/llvm-*/lib/libomp.so.5; do
      AS_IF([test -f "$ompemu_f"], [OMPEMU_LIBOMP=$ompemu_f; break])
    done])
  AS_IF([test -n "$OMPEMU_LIBOMP" && test ! -f "$OMPEMU_LIBOMP"],
    [AC_MSG_ERROR([--with-libomp: $OMPEMU_LIBOMP does not exist])])
  AC_SUBST([OMPEMU_LIBOMP])
  dnl The directory the rpath of pkg-config --libs points at for libomp.so.5.
  OMPEMU_LIBOMP_DIR=
  AS_IF([test -n "$OMPEMU_LIBOMP"], [OMPEMU_LIBOMP_DIR=`dirname "$OMPEMU_LIBOMP"`])
  AC_SUBST([OMPEMU_LIBOMP_DIR])
  AS_IF([test -n "$OMPEMU_LIBOMP"],
    [OMPEMU_PC_LIBOMP_RPATH="-Wl,-rpath,$OMPEMU_LIBOMP_DIR"],
    [OMPEMU_PC_LIBOMP_RPATH=])
  AC_SUBST([OMPEMU_PC_LIBOMP_RPATH])

  ompemu_compilers_summary=
  for ompemu_c in "clang-16:$CLANG16" "clang-19:$CLANG19" "clang-22:$CLANG22" "flang-22:$FLANG22"; do
    AS_IF([test -n "${ompemu_c#*:}"],
      [ompemu_compilers_summary="$ompemu_compilers_summary ${ompemu_c%%:*}"])
  done
  AS_IF([test -z "$ompemu_compilers_summary"], [ompemu_compilers_summary=" none"])
  ompemu_libomp_summary=${OMPEMU_LIBOMP:-none (clang 16+ links need -L to a libomp.so)}
])
