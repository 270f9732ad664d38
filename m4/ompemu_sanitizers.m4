# OMPEMU_ENABLE_SANITIZERS: --enable-sanitizers builds everything with
# AddressSanitizer and UndefinedBehaviorSanitizer.  OMPEMU_SAN_PRELOAD is
# then the ASan runtime that programs not built with ASan (clang-14 offload
# programs loading the instrumented libomptarget.so and plugins) must
# preload; the build-tree ompemu-run and the test environment use it.
AC_DEFUN([OMPEMU_ENABLE_SANITIZERS], [
  AC_ARG_ENABLE([sanitizers],
    [AS_HELP_STRING([--enable-sanitizers], [build with -fsanitize=address,undefined])],
    [], [enable_sanitizers=no])
  ompemu_san_summary=no
  OMPEMU_SAN_PRELOAD=
  AS_IF([test "$enable_sanitizers" = yes], [
    CFLAGS="$CFLAGS -fsanitize=address,undefined -fno-omit-frame-pointer"
    LDFLAGS="$LDFLAGS -fsanitize=address,undefined"
    ompemu_san_summary="address,undefined"
    OMPEMU_SAN_PRELOAD=`$CC -print-file-name=libasan.so`
    AS_CASE([$OMPEMU_SAN_PRELOAD], [/*], [],
      [AC_MSG_ERROR([--enable-sanitizers: $CC does not know its libasan.so])])])
  AC_SUBST([OMPEMU_SAN_PRELOAD])
])
