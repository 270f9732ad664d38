#!/bin/sh
# Fake AMDGPU code objects for the HSA test double: an x86-64 shared object
# with e_machine patched to EM_AMDGPU (224) and e_flags to ARCH's mach.
#   mk-code-object.sh OUT ARCH SRC... [CFLAGS...]   compile with $CC, patch
#   mk-code-object.sh --patch FILE ARCH              patch FILE in place
set -e
patch_only=no
if [ "$1" = --patch ]; then patch_only=yes; shift; fi
out=$1 arch=$2
shift 2
case $arch in
  gfx900) mach=44 ;;   # 0x2c
  gfx906) mach=47 ;;   # 0x2f
  gfx908) mach=48 ;;   # 0x30
  gfx90a) mach=63 ;;   # 0x3f
  gfx1030) mach=54 ;;  # 0x36
  *) echo "mk-code-object.sh: unknown arch $arch" >&2; exit 1 ;;
esac
if [ $patch_only = yes ]; then
  f=$out
else
  f=$out.tmp
  ${CC:-cc} -shared -fPIC -O1 -o "$f" "$@"
fi
# e_machine: 2 bytes at offset 18; e_flags: 4 bytes at offset 48 (LE).
printf '\340\000' | dd of="$f" bs=1 seek=18 conv=notrunc 2>/dev/null
printf "\\$(printf %03o $mach)\\000\\000\\000" |
  dd of="$f" bs=1 seek=48 conv=notrunc 2>/dev/null
[ $patch_only = yes ] || mv "$f" "$out"
