# OMPEMU_ENABLE_SANITIZERS: --enable-sanitizers builds everything with
# AddressSanitizer and UndefinedBehaviorSanitizer.
AC_DEFUN([OMPEMU_ENABLE_SANITIZERS], [
  AC_ARG_ENABLE([sanitizers],
    [AS_HELP_STRING([--enable-sanitizers], [build with -fsanitize=address,undefined])],
    [], [enable_sanitizers=no])
  ompemu_san_summary=no
  AS_IF([test "$enable_sanitizers" = yes], [
    CFLAGS="$CFLAGS -fsanitize=address,undefined -fno-omit-frame-pointer"
    LDFLAGS="$LDFLAGS -fsanitize=address,undefined"
    ompemu_san_summary="address,undefined"])
])
