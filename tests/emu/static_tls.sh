#!/bin/sh
# TAP: the emu plugin needs no static TLS.  It is dlopen'ed, and a module
# with one initial-exec __thread variable needs its whole TLS block in
# glibc's static surplus: dlopen then fails ("cannot allocate memory in
# static TLS block", tests/bench/profile/launch.md).  Checked on the built
# plugin with readelf (the STATIC_TLS flag), and on a library planted with an
# initial-exec variable (a check that cannot fail is no check).
set -u
: "${OMPEMU_BUILDDIR:?}"
plugin=$OMPEMU_BUILDDIR/.libs/libomptarget.rtl.emu.so
echo "1..2"
static_tls() { readelf -d "$1" 2>/dev/null | grep -q 'STATIC_TLS'; }
if ! command -v readelf >/dev/null 2>&1; then
  echo "ok 1 # SKIP readelf not installed"
  echo "ok 2 # SKIP readelf not installed"
  exit 0
fi
if [ ! -f "$plugin" ]; then
  echo "not ok 1 - emu plugin: $plugin not built"
elif static_tls "$plugin"; then
  echo "not ok 1 - emu plugin: needs static TLS (an initial-exec __thread)"
else
  echo "ok 1 - emu plugin: no static TLS (dlopen cannot fail for it)"
fi
t=$(mktemp -d "${TMPDIR:-/tmp}/ompemu-tls.XXXXXX") || exit 1
trap 'rm -rf "$t"' EXIT
printf '__thread int v __attribute__((tls_model("initial-exec")));\n%s\n' \
  'int get(void) { return v; }' >"$t/ie.c"
if ! ${CC:-cc} -shared -fPIC -O2 "$t/ie.c" -o "$t/ie.so" 2>"$t/err"; then
  echo "not ok 2 - the planted library did not build"
  sed 's/^/# /' "$t/err"
elif static_tls "$t/ie.so"; then
  echo "ok 2 - a library with an initial-exec __thread is found"
else
  echo "not ok 2 - a library with an initial-exec __thread is not found"
fi
