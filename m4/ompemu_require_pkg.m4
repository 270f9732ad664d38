# OMPEMU_REQUIRE_PKG(VAR, MODULE, DEBIAN-PACKAGE)
# Find a required library with pkg-config; fail naming the Debian package.
AC_DEFUN([OMPEMU_REQUIRE_PKG], [
  PKG_CHECK_MODULES([$1], [$2], [],
    [AC_MSG_ERROR([$2 not found by pkg-config. On Debian/Ubuntu: apt-get install $3])])
])
