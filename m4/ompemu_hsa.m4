# OMPEMU_WITH_HSA: --with-hsa[=DIR] / --without-hsa.  Builds the hsa plugin
# when hsa/hsa.h is found (Debian: libhsa-runtime-dev).  The plugin dlopens
# libhsa-runtime64.so.1 at run time.
AC_DEFUN([OMPEMU_WITH_HSA], [
  AC_ARG_WITH([hsa],
    [AS_HELP_STRING([--with-hsa@<:@=DIR@:>@],
      [build the HSA plugin using DIR/include/hsa/hsa.h (default: check /usr and /opt/rocm)])],
    [], [with_hsa=check])
  ompemu_hsa_summary=no
  HSA_CPPFLAGS=
  AS_CASE(["$with_hsa"],
    [no], [ompemu_hsa_summary="no (--without-hsa)"],
    [yes|check], [ompemu_hsa_dirs="/usr /opt/rocm"],
    [ompemu_hsa_dirs="$with_hsa"])
  build_hsa=no
  for d in $ompemu_hsa_dirs; do
    AS_IF([test "$with_hsa" != no && test -f "$d/include/hsa/hsa.h"], [
      build_hsa=yes
      AS_IF([test "$d" != /usr], [HSA_CPPFLAGS="-I$d/include"])
      ompemu_hsa_summary="yes ($d/include/hsa/hsa.h)"; break])
  done
  AS_IF([test "$build_hsa" = no && test "$with_hsa" != no && test "$with_hsa" != check],
    [AC_MSG_ERROR([--with-hsa given but hsa/hsa.h not found under $ompemu_hsa_dirs (apt-get install libhsa-runtime-dev)])])
  AS_IF([test "$build_hsa" = no && test "$with_hsa" = check],
    [ompemu_hsa_summary="no (hsa/hsa.h not found; apt-get install libhsa-runtime-dev)"])
  AC_MSG_CHECKING([whether to build the hsa plugin])
  AC_MSG_RESULT([$build_hsa])
  AC_SUBST([HSA_CPPFLAGS])
  AM_CONDITIONAL([BUILD_HSA], [test "$build_hsa" = yes])
])
