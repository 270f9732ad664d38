# AX_PTHREAD_SIMPLE: POSIX threads through -pthread (gcc and clang).
AC_DEFUN([AX_PTHREAD_SIMPLE], [
  AC_CHECK_HEADER([pthread.h], [], [AC_MSG_ERROR([pthread.h not found: install libc6-dev])])
  PTHREAD_CFLAGS="-pthread"
  PTHREAD_LIBS="-pthread"
  AC_SUBST([PTHREAD_CFLAGS])
  AC_SUBST([PTHREAD_LIBS])
])
