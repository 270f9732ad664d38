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
# The newer compilers the test suite builds with (tests/clang, tests/fortran).
# Their OpenMP runtimes (libomp5-16/19, liboffload-22, ...) are NOT installed:
# they would remove libomp-14-dev; tests/compilers/provision.sh unpacks them
# privately instead.
newer="clang-16 clang-tools-16 clang-19 clang-tools-19 clang-22 clang-tools-22 llvm-22 flang-22"
[ "$what" = test ] && pkgs="$pkgs $newer"
missing=
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "bootstrap: installing:$missing"
  if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
  $SUDO apt-get update -qq
  # Never let an install remove anything (libomp-14-dev above all).
  removed=$(apt-get install -s --no-install-recommends $missing 2>/dev/null | sed -n 's/^Remv \([^ ]*\).*/\1/p' | tr '\n' ' ')
  if [ -n "$removed" ]; then
    echo "bootstrap: error: installing$missing would REMOVE: $removed" >&2
    echo "bootstrap: (libomp-14-dev must stay; install the rest by hand)" >&2
    exit 1
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi
if [ "$what" = test ]; then
  # LLVM 16/19/22's runtimes, unpacked into ~/.cache/ompemu/llvm; a
  # failure only makes those tests skip (with the reason).
  tests/compilers/provision.sh 16 19 22 >/dev/null ||
    echo "bootstrap: warning: private LLVM runtimes not all provisioned; their tests will be skipped"
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
