# OMPEMU_WITH_CUDA: --with-cuda[=DIR] / --without-cuda.  Builds the cuda
# plugin when cuda.h is found (default: look in /usr/local/cuda).  The plugin
# dlopens libcuda.so.1 at run time, so only the header is needed here.
AC_DEFUN([OMPEMU_WITH_CUDA], [
  AC_ARG_WITH([cuda],
    [AS_HELP_STRING([--with-cuda@<:@=DIR@:>@],
      [build the CUDA plugin using cuda.h from DIR/include (default: check /usr/local/cuda)])],
    [], [with_cuda=check])
  ompemu_cuda_summary=no
  CUDA_CPPFLAGS=
  AS_CASE(["$with_cuda"],
    [no], [ompemu_cuda_summary="no (--without-cuda)"],
    [yes|check], [ompemu_cuda_dirs="/usr/local/cuda /usr"],
    [ompemu_cuda_dirs="$with_cuda"])
  build_cuda=no
  for d in $ompemu_cuda_dirs; do
    AS_IF([test "$with_cuda" != no && test -f "$d/include/cuda.h"], [
      build_cuda=yes; CUDA_CPPFLAGS="-I$d/include"
      ompemu_cuda_summary="yes ($d/include/cuda.h)"; break])
  done
  AS_IF([test "$build_cuda" = no && test "$with_cuda" != no && test "$with_cuda" != check],
    [AC_MSG_ERROR([--with-cuda given but cuda.h not found under $ompemu_cuda_dirs])])
  AS_IF([test "$build_cuda" = no && test "$with_cuda" = check],
    [ompemu_cuda_summary="no (cuda.h not found; use --with-cuda=DIR)"])
  AC_MSG_CHECKING([whether to build the cuda plugin])
  AC_MSG_RESULT([$build_cuda])
  AC_SUBST([CUDA_CPPFLAGS])
  AM_CONDITIONAL([BUILD_CUDA], [test "$build_cuda" = yes])
])
