#!/bin/sh
# Fetch an LLVM release's libomptarget test tree from Debian's source package
# llvm-toolchain-N and cache it, so that `make check-llvm` (and
# check-llvm-19, check-llvm-22) run offline afterwards: LLVM 14.0.6's
# openmp/libomptarget/test, or LLVM 19.1.7's and 22.1.8's offload/test (the
# tree moved there in LLVM 19).  Network and apt are only touched when the
# cache is empty.  Needs root (or sudo) only to add a deb-src entry and run
# `apt-get update` when no deb-src entry exists yet.
#
# Usage: fetch-llvm-tests.sh [--llvm=N] [CACHE_DIR]      N: 14 (default), 19, 22
#   CACHE_DIR defaults to $OMPEMU_LLVM_SRC_CACHE, else ~/.cache/ompemu.
#   OMPEMU_LLVM_DEB_VERSION overrides the Debian version fetched.
# Prints the path of the extracted test tree on success (last line).
set -eu

major=14
case ${1:-} in --llvm=*) major=${1#*=}; shift ;; esac
case $major in
  14) dflt=1:14.0.6-12 sub=openmp/libomptarget/test ;;
  19) dflt=1:19.1.7-3~deb12u1 sub=offload/test ;;
  22) dflt=1:22.1.8-1~deb12u1 sub=offload/test ;;
  *) echo "fetch-llvm-tests: error: no test tree known for LLVM '$major' (14, 19 or 22)" >&2; exit 1 ;;
esac
VERSION=${OMPEMU_LLVM_DEB_VERSION:-$dflt}
PKG=llvm-toolchain-$major
CACHE=${1:-${OMPEMU_LLVM_SRC_CACHE:-${HOME:-/tmp}/.cache/ompemu}}
UPSTREAM=${VERSION#*:}; UPSTREAM=${UPSTREAM%-*}          # 14.0.6
DEST="$CACHE/llvm-$UPSTREAM"
TESTDIR="$DEST/$sub"

if [ -f "$TESTDIR/lit.cfg" ] && [ -f "$DEST/.complete" ]; then
  echo "$TESTDIR"
  exit 0
fi

say() { echo "fetch-llvm-tests: $*" >&2; }
die() { say "error: $*"; exit 1; }

command -v apt-get >/dev/null 2>&1 || die "apt-get not found; put LLVM $UPSTREAM's $sub under $DEST by hand"
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
# from_pool: the fallback when apt cannot fetch a file of the source
# package (a mirror that lists the package in one suite but keeps its
# files in another's pool): each deb-src URI's pool, the file checked
# against the SHA-256 that apt's lists give for it.
from_pool() {
  command -v curl >/dev/null 2>&1 || return 1
  sums=$(apt-cache showsrc "$PKG" 2>/dev/null | awk -v v="$VERSION" '
      /^Package:/ { ver = ""; on = 0 }
      /^Version:/ { ver = $2 }
      /^[^ ]/ { on = ($1 == "Checksums-Sha256:" && ver == v); next }
      on && NF == 3 && length($1) == 64 { print $1, $3 }' | sort -u)
  [ -n "$sums" ] || return 1
  uris=$(grep -rhsE '^[[:space:]]*URIs:|^[[:space:]]*deb-src[[:space:]]' \
      /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null |
    sed -e 's/^[[:space:]]*URIs:[[:space:]]*//' -e 's/^[[:space:]]*deb-src[[:space:]]*\(\[[^]]*\][[:space:]]*\)\{0,1\}//' |
    awk '{ print $1 }' | sort -u)
  echo "$sums" | while read -r sum file; do
    case $file in *.orig.tar.*|*.debian.tar.*) ;; *) continue ;; esac
    [ -f "$file" ] && echo "$sum  $file" | sha256sum -c --status && continue
    got=
    for u in $uris; do
      for pool in pool/main pool/updates/main; do
        say "trying ${u%/}/$pool/l/$PKG/$file"
        if curl -fsSL --max-time 900 -o "$file" "${u%/}/$pool/l/$PKG/$file" &&
           echo "$sum  $file" | sha256sum -c --status; then got=1; break 2; fi
        rm -f "$file"
      done
    done
    [ -n "$got" ] || { say "no pool has $file"; return 1; }
  done
}
if ! apt-get source -q --download-only "$PKG=$VERSION" >&2; then
  # Stale package lists (a deb-src entry added without `apt-get update`).
  say "retrying after apt-get update"
  $SUDO apt-get update -q >&2 || die "apt-get update failed"
  apt-get source -q --download-only "$PKG=$VERSION" >&2 || from_pool ||
    die "apt-get source --download-only $PKG=$VERSION failed"
fi
orig=$(ls ${PKG}_"$UPSTREAM".orig.tar.* 2>/dev/null | head -n 1)
[ -n "$orig" ] || die "no ${PKG}_$UPSTREAM.orig.tar.* downloaded"

# Extract only the libomptarget test tree (and what lit needs from it).
say "extracting $sub from $orig"
mkdir x
tar -xf "$orig" -C x --wildcards "*/$sub/*" >&2 ||
  die "extracting $sub from $orig failed"
top=$(ls x | head -n 1)
[ -f "x/$top/$sub/lit.cfg" ] || die "lit.cfg missing in the extracted tree"

# Debian patches that touch the test tree, applied if any.
deb=$(ls ${PKG}_"${UPSTREAM}"-*.debian.tar.* 2>/dev/null | head -n 1 || true)
if [ -n "$deb" ]; then
  mkdir d && tar -xf "$deb" -C d debian/patches >/dev/null 2>&1 || true
  if [ -f d/debian/patches/series ]; then
    grep -v '^#' d/debian/patches/series | while read -r p _; do
      [ -n "$p" ] && [ -f "d/debian/patches/$p" ] || continue
      if grep -q "^+++ .*$sub/" "d/debian/patches/$p"; then
        say "applying Debian patch $p (test tree part)"
        (cd "x/$top" && patch -p1 -s --no-backup-if-mismatch -f \
          -i "$work/d/debian/patches/$p" >/dev/null 2>&1) || true
      fi
    done
  fi
fi

rm -rf "$DEST"
mkdir -p "$(dirname "$TESTDIR")"
mv "x/$top/$sub" "$TESTDIR"
echo "$PKG=$VERSION" >"$DEST/.complete"
say "cached in $DEST"
echo "$TESTDIR"
