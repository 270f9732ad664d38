#!/bin/sh
# Private copies of LLVM 16, 19 and 22's OpenMP runtimes, for building and
# running programs "the Debian way" without installing them: libomp5-16/19,
# libomp-16/19/22-dev and liboffload-22 conflict with libomp-14-dev (they
# all provide libomp-x.y), so installing one would REMOVE libomp-14-dev.
# Instead: `apt-get download` the packages and `dpkg-deb -x` them into
#   $OMPEMU_LLVM_CACHE/<major>-<debian version without epoch>/
# (default cache: ${XDG_CACHE_HOME:-$HOME/.cache}/ompemu/llvm), with a
# symlink $OMPEMU_LLVM_CACHE/<major> to the current one.  Nothing on the
# system is touched.  Idempotent: a complete tree (stamp file) is reused.
#
# Usage: provision.sh [--quiet] [--offline|--refresh] MAJOR...    (MAJOR: 16, 19, 22)
#        provision.sh --env MAJOR        print the tree's variables
# For each MAJOR it prints one line "MAJOR TREE" on success.  The tree holds
# ompemu-llvm.env, shell assignments of:
#   LLVM_RT_LIBDIR   the version's library directory: libomptarget.so.N and
#                    libomp.so.5 (what a user puts on LD_LIBRARY_PATH), and
#                    the link-time libomp.so, libomptarget.so (and
#                    libomptarget.devicertl.a for 16 and 19) for -L
#   LLVM_RT_INCDIR   the version's omp.h (clang 16+ cannot use libomp 14's)
#   LLVM_RT_SONAME   the libomptarget name its binaries NEED
#   LLVM_RT_VERSION  the Debian package version extracted
# A tree made before is reused without asking apt; --refresh asks apt for
# the current candidate version and extracts it when it is newer.
# --offline: never download; fail if the tree is not there yet.
# Exit status: 0 all trees ready; 1 some could not be made (reason on stderr).
set -u
me=provision.sh
quiet=
offline=
refresh=
env_only=
while [ $# -gt 0 ]; do
  case $1 in
    --quiet) quiet=1 ;;
    --offline) offline=1 ;;
    --refresh) refresh=1 ;;
    --env) env_only=1 ;;
    --help|-h) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "$me: unknown option '$1'" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
[ $# -gt 0 ] || { echo "$me: no LLVM major version given (16, 19 or 22)" >&2; exit 2; }
cache=${OMPEMU_LLVM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/ompemu/llvm}

say() { [ -n "$quiet" ] || echo "$me: $*" >&2; }

# packages MAJOR: the packages whose files make one self-contained tree.
# 22 has no libomp of its own: Debian pairs it with libomp5-19.
packages() {
  case $1 in
    16) echo "libomp5-16 libomp-16-dev" ;;
    19) echo "libomp5-19 libomp-19-dev" ;;
    22) echo "liboffload-22 liboffload-22-dev libomp-22-dev libomp5-19" ;;
    *) return 1 ;;
  esac
}
soname() {
  case $1 in 16) echo libomptarget.so.16 ;; 19) echo libomptarget.so.19.1 ;;
    22) echo libomptarget.so.22.1 ;; esac
}

# The candidate version of package $1, epoch removed (a ':' in a directory
# name would split LD_LIBRARY_PATH).
candidate() {
  apt-cache policy "$1" 2>/dev/null |
    sed -n 's/^ *Candidate: *//p' | sed 's/^[0-9]*://' | grep -v '(none)'
}

write_env() { # TREE MAJOR VERSION
  t=$1 m=$2
  lib=$t/usr/lib/llvm-$m/lib
  inc=$t/usr/lib/llvm-$m/lib/clang/$m/include
  {
    echo "LLVM_RT_LIBDIR='$lib'"
    echo "LLVM_RT_INCDIR='$inc'"
    echo "LLVM_RT_SONAME='$(soname "$m")'"
    echo "LLVM_RT_VERSION='$3'"
  } >"$t/ompemu-llvm.env"
}

# check_tree TREE MAJOR: the files tests rely on are there.
check_tree() {
  t=$1 m=$2
  lib=$t/usr/lib/llvm-$m/lib
  for f in "$lib/$(soname "$m")" "$lib/libomptarget.so" "$lib/libomp.so" \
           "$lib/libomp.so.5" "$t/usr/lib/llvm-$m/lib/clang/$m/include/omp.h"; do
    [ -e "$f" ] || { echo "$me: LLVM $m tree $t lacks $f" >&2; return 1; }
  done
  return 0
}

provision() { # MAJOR
  m=$1
  pkgs=$(packages "$m") || { echo "$me: no private tree for LLVM '$m' (16, 19 or 22)" >&2; return 1; }
  link=$cache/$m
  if [ -z "$refresh" ] && [ -f "$link/.complete" ] && check_tree "$link" "$m"; then
    echo "$m $link"; return 0
  fi
  if [ -n "$offline" ]; then
    if [ -f "$link/.complete" ] && check_tree "$link" "$m"; then echo "$m $link"; return 0; fi
    echo "$me: LLVM $m tree not provisioned in $cache (run $0 $m)" >&2; return 1
  fi
  ver=$(candidate "${pkgs%% *}")
  if [ -z "$ver" ]; then
    # No apt lists (or no such package here): use what was made before.
    if [ -f "$link/.complete" ] && check_tree "$link" "$m"; then echo "$m $link"; return 0; fi
    echo "$me: apt knows no candidate for ${pkgs%% *} (run apt-get update; Debian 12 with bookworm-updates/security)" >&2
    return 1
  fi
  dir=$cache/$m-$ver
  if [ ! -f "$dir/.complete" ]; then
    say "extracting $pkgs into $dir"
    work=$cache/.work-$m.$$
    rm -rf "$work" && mkdir -p "$work/debs" "$work/root" || return 1
    # apt-get download writes into the current directory; as root, apt's
    # sandbox user cannot write there, which only produces a warning.
    if ! (cd "$work/debs" && apt-get download $pkgs >"$work/download.log" 2>&1); then
      echo "$me: apt-get download $pkgs failed:" >&2
      tail -n 5 "$work/download.log" >&2
      rm -rf "$work"; return 1
    fi
    for d in "$work"/debs/*.deb; do
      dpkg-deb -x "$d" "$work/root" || { echo "$me: dpkg-deb -x $d failed" >&2; rm -rf "$work"; return 1; }
    done
    rm -rf "$dir"
    mv "$work/root" "$dir" || { rm -rf "$work"; return 1; }
    # The linker wants libomptarget.devicertl.a for clang 16/19; it is in
    # the -dev package already.  The tree must not depend on the system's
    # copy of anything it names.
    check_tree "$dir" "$m" || { rm -rf "$work"; return 1; }
    write_env "$dir" "$m" "$ver"
    (cd "$work/debs" && ls) >"$dir/.packages"
    touch "$dir/.complete"
    rm -rf "$work"
  fi
  ln -sfn "$m-$ver" "$link.tmp.$$" && mv -Tf "$link.tmp.$$" "$link" || return 1
  echo "$m $link"
}

mkdir -p "$cache" || { echo "$me: cannot create $cache" >&2; exit 1; }
rc=0
for m in "$@"; do
  if [ -n "$env_only" ]; then
    cat "$cache/$m/ompemu-llvm.env" 2>/dev/null || { echo "$me: LLVM $m tree not provisioned" >&2; rc=1; }
    continue
  fi
  provision "$m" || rc=1
done
# The one system package these trees exist to protect.
if ! dpkg-query -W -f='${Status}' libomp-14-dev 2>/dev/null | grep -q 'ok installed'; then
  say "note: libomp-14-dev is not installed (this script never removes it)"
fi
exit $rc
