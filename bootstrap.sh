#!/bin/sh
# One-step setup for a fresh clone (the README's Quick start):
#   ./bootstrap.sh        install what is missing, build in ./build, run the demo
#   ./bootstrap.sh test   the same, then run the test suite (make check)
# Environment: JOBS (parallel make jobs), CONFIGURE_FLAGS (extra configure flags).
set -e
cd "$(dirname "$0")"
what=${1:-demo}
case "$what" in demo|test|build) ;; *) echo "usage: $0 [demo|test|build]" >&2; exit 2;; esac

pkgs="build-essential autoconf automake libtool pkg-config libelf-dev libffi-dev libcmocka-dev libhsa-runtime-dev clang-14 libomp-14-dev llvm-14-tools gfortran valgrind gdb"
missing=
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "bootstrap: installing:$missing"
  if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi

if [ ! -x configure ] || [ configure.ac -nt configure ]; then
  autoreconf -fi
fi
mkdir -p build
cd build
if [ ! -f Makefile ] || [ ../configure -nt config.status ]; then
  ../configure $CONFIGURE_FLAGS
fi
make -j"${JOBS:-$(nproc)}"
case "$what" in
  demo) make demo ;;
  test) make -j"${JOBS:-$(nproc)}" check ;;
esac
