#!/bin/sh
# Fetch LLVM 14.0.6's openmp/libomptarget/test tree from Debian's source
# package llvm-toolchain-14 and cache it, so that `make check-llvm` runs
# offline afterwards.  Network and apt are only touched when the cache is
# empty.  Needs root (or sudo) only to add a deb-src entry and run
# `apt-get update` when no deb-src entry exists yet.
#
# Usage: fetch-llvm-tests.sh [CACHE_DIR]
#   CACHE_DIR defaults to $OMPEMU_LLVM_SRC_CACHE, else ~/.cache/ompemu.
# Prints the path of the extracted test tree on success (last line).
set -eu

VERSION=${OMPEMU_LLVM_DEB_VERSION:-1:14.0.6-12}
PKG=llvm-toolchain-14
CACHE=${1:-${OMPEMU_LLVM_SRC_CACHE:-${HOME:-/tmp}/.cache/ompemu}}
UPSTREAM=${VERSION#*:}; UPSTREAM=${UPSTREAM%-*}          # 14.0.6
DEST="$CACHE/llvm-$UPSTREAM"
TESTDIR="$DEST/openmp/libomptarget/test"

if [ -f "$TESTDIR/lit.cfg" ] && [ -f "$DEST/.complete" ]; then
  echo "$TESTDIR"
  exit 0
fi

say() { echo "fetch-llvm-tests: $*" >&2; }
die() { say "error: $*"; exit 1; }

command -v apt-get >/dev/null 2>&1 || die "apt-get not found; put LLVM $UPSTREAM's openmp/libomptarget/test under $DEST by hand"
SUDO=
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 && SUDO="sudo -n"
fi

# A deb-src entry mirroring the machine's deb entries (deb822 or one-line).
have_deb_src() {
  grep -rqsE '^[[:space:]]*(Types:.*deb-src|deb-src[[:space:]])' \
    /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null
}
if ! have_deb_src; then
  tmpsrc=$(mktemp)
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    # Keep each stanza, switch its Types to deb-src.
    awk '/^[[:space:]]*Types:/ { print "Types: deb-src"; next } { print }' "$f" >>"$tmpsrc"
    echo >>"$tmpsrc"
  done
  list=/etc/apt/sources.list.d/ompemu-deb-src.sources
  if [ -s "$tmpsrc" ]; then
    say "adding deb-src entries in $list"
    $SUDO cp "$tmpsrc" "$list" || die "cannot write $list (run as root)"
  else
    one=/etc/apt/sources.list.d/ompemu-deb-src.list
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
      sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' >"$tmpsrc" || true
    [ -s "$tmpsrc" ] || { rm -f "$tmpsrc"; die "no apt deb entries to derive a deb-src entry from"; }
    say "adding deb-src entries in $one"
    $SUDO cp "$tmpsrc" "$one" || die "cannot write $one (run as root)"
  fi
  rm -f "$tmpsrc"
  $SUDO chmod 644 /etc/apt/sources.list.d/ompemu-deb-src.* 2>/dev/null || true
  $SUDO apt-get update -q >&2 || die "apt-get update failed"
fi

mkdir -p "$CACHE"
work=$(mktemp -d "$CACHE/fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
say "downloading $PKG=$VERSION (source, download only)"
if ! apt-get source -q --download-only "$PKG=$VERSION" >&2; then
  # Stale package lists (a deb-src entry added without `apt-get update`).
  say "retrying after apt-get update"
  $SUDO apt-get update -q >&2 || die "apt-get update failed"
  apt-get source -q --download-only "$PKG=$VERSION" >&2 ||
    die "apt-get source --download-only $PKG=$VERSION failed"
fi
orig=$(ls ${PKG}_"$UPSTREAM".orig.tar.* 2>/dev/null | head -n 1)
[ -n "$orig" ] || die "no ${PKG}_$UPSTREAM.orig.tar.* downloaded"

# Extract only the libomptarget test tree (and what lit needs from it).
say "extracting openmp/libomptarget/test from $orig"
mkdir x
tar -xf "$orig" -C x --wildcards '*/openmp/libomptarget/test/*' >&2 ||
  die "extracting openmp/libomptarget/test from $orig failed"
top=$(ls x | head -n 1)
[ -f "x/$top/openmp/libomptarget/test/lit.cfg" ] || die "lit.cfg missing in the extracted tree"

# Debian patches that touch the test tree, applied if any.
deb=$(ls ${PKG}_"${UPSTREAM}"-*.debian.tar.* 2>/dev/null | head -n 1 || true)
if [ -n "$deb" ]; then
  mkdir d && tar -xf "$deb" -C d debian/patches >/dev/null 2>&1 || true
  if [ -f d/debian/patches/series ]; then
    grep -v '^#' d/debian/patches/series | while read -r p _; do
      [ -n "$p" ] && [ -f "d/debian/patches/$p" ] || continue
      if grep -q '^+++ .*openmp/libomptarget/test/' "d/debian/patches/$p"; then
        say "applying Debian patch $p (test tree part)"
        (cd "x/$top" && patch -p1 -s --no-backup-if-mismatch -f \
          -i "$work/d/debian/patches/$p" >/dev/null 2>&1) || true
      fi
    done
  fi
fi

rm -rf "$DEST"
mkdir -p "$DEST/openmp/libomptarget"
mv "x/$top/openmp/libomptarget/test" "$DEST/openmp/libomptarget/test"
echo "$PKG=$VERSION" >"$DEST/.complete"
say "cached in $DEST"
echo "$TESTDIR"
