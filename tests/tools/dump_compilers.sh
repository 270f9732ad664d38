#!/bin/sh
# TAP tests of ompemu-dump on what clang 16, 19, 22 and flang 22 emit: the
# OffloadBinary container (clang 16) and the raw ELF inside one (19, 22),
# 32-byte and 56-byte entry tables, requires entries (19: bits in the
# reserved word, 22: ".requires" with the bits in Data), indirect-function
# and vtable entries, clang 16's ctor/dtor entries, a flang 22 program;
# --needs and --defines; corrupted containers and mutants (no crash, no
# hang).  Each compiler that is not installed, or whose private LLVM
# runtime tree (tests/compilers/provision.sh) cannot be made, is skipped
# with the reason.
set -u
B=${OMPEMU_BUILDDIR:?OMPEMU_BUILDDIR is not set}
S=${OMPEMU_SRCDIR:?OMPEMU_SRCDIR is not set}
CC=${CC:-cc}
DUMP=$B/ompemu-dump
W=$B/tests/tools/work-dump-compilers
rm -rf "$W" && mkdir -p "$W" && cd "$W" || { echo "Bail out! no $W"; exit 1; }

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
# has FILE NAME REGEX...: every extended regex matches a line of FILE.
has() {
  f=$1 name=$2; shift 2
  for re in "$@"; do
    grep -Eq -- "$re" "$f" || { nok "$name" "no line matches: $re" "$(head -c 2500 "$f")"; return; }
  done
  ok "$name"
}
off="-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu"

cat >prog.c <<'EOF'
#include <stdio.h>
#pragma omp requires unified_shared_memory
int gto = 3;
#pragma omp declare target(gto)
int glink[4];
#pragma omp declare target link(glink)
int twice(int x) { return 2 * x; }
#pragma omp declare target indirect to(twice)
int main(void) {
  int r = 0;
  int (*fp)(int) = twice;
#pragma omp target map(tofrom: r, glink)
  r = gto + fp(1) + glink[0];
  printf("%d\n", r);
  return 0;
}
EOF
cat >ctor.cpp <<'EOF'
struct Counter {
  int v;
  Counter() : v(7) {}
  ~Counter() { v = 0; }
};
#pragma omp declare target
Counter counter;
#pragma omp end declare target
int main() {
  int r = 0;
#pragma omp target map(from: r)
  r = counter.v;
  return r != 7;
}
EOF
cat >virt.cpp <<'EOF'
#pragma omp begin declare target indirect
struct Base { virtual int f(int x) { return x; } virtual ~Base() {} };
struct D : Base { int f(int x) override { return 10 * x; } };
#pragma omp end declare target
int main() {
  int r = 0;
  D hd; /* a host object: its class's vtable gets an entry */
#pragma omp target map(from: r) map(to: hd)
  {
    D d;
    Base *b = &d;
    r = b->f(3) + hd.f(0);
  }
  return r != 30;
}
EOF

# tree VERSION: the private LLVM tree's variables, or return 1.
tree() {
  t=$("$S/tests/compilers/provision.sh" --quiet "$1" 2>provision-$1.log) || return 1
  . "${t#$1 }/ompemu-llvm.env"
}

# --------------------------------------------------------------- clang 16
if [ -z "${CLANG16:-}" ]; then
  for i in 1 2 3; do skip "clang-16 not installed"; done
elif ! tree 16; then
  for i in 1 2 3; do skip "no private LLVM 16 tree: $(tail -n 1 provision-16.log)"; done
else
  cxx16=$(dirname "$CLANG16")/clang++-16
  if $cxx16 $off -I"$LLVM_RT_INCDIR" ctor.cpp -L"$LLVM_RT_LIBDIR" -o ctor16 >build16.log 2>&1; then
    "$DUMP" ctor16 >ctor16.txt 2>&1; st=$?
    has ctor16.txt "clang 16: exit $st, OffloadBinary container with its strings" \
      '^  image 0: ' 'format: OffloadBinary \(clang 16\), ELF at offset 0x90, [0-9]+ bytes' \
      'container: version 1, [0-9]+ bytes, image kind object, offload kind OpenMP, flags 0x0, triple x86_64-pc-linux-gnu, arch ""' \
      '^omp_offloading_entries: .* entries of 32 bytes\)'
    has ctor16.txt "clang 16: ctor and dtor entries (flags 0x2, 0x4), device entries read" \
      '\] ctor +__omp_offloading_.*_ctor$' '\] dtor +__omp_offloading_.*_dtor$' \
      'flags CTOR \(0x2\)' 'flags DTOR \(0x4\)' 'entry table: omp_offloading_entries, 32-byte entries' \
      'needs libraries .*libomptarget\.so\.16'
    "$DUMP" --needs ctor16 >needs16.txt 2>&1
    has needs16.txt "clang 16 --needs: RUNPATH, the image inside the container, its NEEDED" \
      '^needed libomptarget\.so\.16$' '^runpath /usr/lib/llvm-16/lib$' \
      '^undef __tgt_target_kernel VERS1\.0 libomptarget\.so\.16 strong$' \
      '^image 0 format offload-binary$' '^image 0 needed libomptarget\.so\.16$'
  else
    for i in 1 2 3; do nok "clang-16 builds ctor.cpp" "$(tail -5 build16.log)"; done
  fi
fi

# --------------------------------------------------------------- clang 19
if [ -z "${CLANG19:-}" ]; then
  for i in 1 2; do skip "clang-19 not installed"; done
elif ! tree 19; then
  for i in 1 2; do skip "no private LLVM 19 tree: $(tail -n 1 provision-19.log)"; done
else
  if "$CLANG19" $off -fopenmp-version=51 -I"$LLVM_RT_INCDIR" prog.c -L"$LLVM_RT_LIBDIR" -o prog19 >build19.log 2>&1; then
    "$DUMP" prog19 >prog19.txt 2>&1
    has prog19.txt "clang 19: raw ELF inside a container, 32-byte entries" \
      'format: raw ELF inside an OffloadBinary \(clang 19\+: the image starts at offset 0x90 of the container at 0x[0-9a-f]{16}\)' \
      'triple x86_64-pc-linux-gnu, arch ""' '^omp_offloading_entries: .* entries of 32 bytes\)'
    has prog19.txt "clang 19: requires entry (empty name, bits in reserved), indirect function on both sides, link" \
      '\] requires +\(empty name\)$' 'requires unified_shared_memory \(0x8\)' 'flags REQUIRES \(0x10\)' \
      '^    \[[0-9]\] indirect function +__omp_offloading_[0-9a-f_]+_twice_l[0-9]+$' \
      '^      \[[0-9]\] indirect function +__omp_offloading_[0-9a-f_]+_twice_l[0-9]+$' \
      '\] link +glink_decl_tgt_ref_ptr$' 'a requires entry: no device symbol' \
      'glink_decl_tgt_ref_ptr: no device entry of that name \(a link reference pointer: the image exports it'
  else
    for i in 1 2; do nok "clang-19 builds prog.c" "$(tail -5 build19.log)"; done
  fi
fi

# --------------------------------------------------------------- clang 22
if [ -z "${CLANG22:-}" ]; then
  for i in 1 2 3 4 5 6 7; do skip "clang-22 not installed"; done
elif ! tree 22; then
  for i in 1 2 3 4 5 6 7; do skip "no private LLVM 22 tree: $(tail -n 1 provision-22.log)"; done
else
  cxx22=$(dirname "$CLANG22")/clang++-22
  if "$CLANG22" $off -fopenmp-version=51 -I"$LLVM_RT_INCDIR" prog.c -L"$LLVM_RT_LIBDIR" -o prog22 >build22.log 2>&1 &&
     $cxx22 $off -fopenmp-version=51 -Wno-openmp-mapping -I"$LLVM_RT_INCDIR" virt.cpp -L"$LLVM_RT_LIBDIR" -o virt22 >>build22.log 2>&1; then
    "$DUMP" prog22 >prog22.txt 2>&1; st=$?
    has prog22.txt "clang 22: exit $st, 56-byte llvm_offload_entries on both sides" \
      '^llvm_offload_entries: 0x[0-9a-f]{16}\.\.0x[0-9a-f]{16} \(5 entries of 56 bytes\)$' \
      'entry table: llvm_offload_entries, 56-byte entries' \
      'format: raw ELF inside an OffloadBinary \(clang 19\+'
    has prog22.txt "clang 22: .requires entry with the bits in Data, indirect function, link, kernel" \
      '\] requires +\.requires$' 'requires unified_shared_memory \(0x8\)' \
      '\] indirect function +__omp_offloading_[0-9a-f_]+_twice_l[0-9]+$' 'flags FPTR \(0x8\), size 8' \
      '\] link +glink_decl_tgt_ref_ptr$' '\] kernel +__omp_offloading_[0-9a-f_]+_main_l[0-9]+$'
    "$DUMP" virt22 >virt22.txt 2>&1
    has virt22.txt "clang 22: vtable entries, host name ...addr vs the class's name on the device" \
      '^    \[[0-9]\] vtable +__omp_offloading_[0-9a-f_]+__ZTV1D_l[0-9]+addr$' \
      '^      \[[0-9]\] vtable +_ZTV1D$' 'flags VTABLE \(0x20\), size [0-9]+' \
      '__ZTV1D_l[0-9]+addr: no device entry of that name \(a vtable: the device entry has the class.s own name'
    if command -v python3 >/dev/null 2>&1; then
      "$DUMP" --json prog22 >prog22.json
      if python3 -c "
import json
d = json.load(open('prog22.json'))
assert d['entries_section']['name'] == 'llvm_offload_entries' and d['entries_section']['format'] == 56
x = d['descriptors'][0]
assert x['host_entries_format'] == 56
kinds = [e['kind'] for e in x['host_entries']]
assert 'requires' in kinds and 'indirect function' in kinds and 'link' in kinds, kinds
req = [e for e in x['host_entries'] if e['kind'] == 'requires'][0]
assert req['data'] == 8 and req['format'] == 56 and req['name'] == '.requires'
im = x['images'][0]
c = im['container']
assert c['around'] is True and c['version'] == 1 and c['triple'] == 'x86_64-pc-linux-gnu' and c['image_offset'] == 0x90
assert im['image']['entries_format'] == 56 and im['image']['entries_section'] == 'llvm_offload_entries'
" 2>json.err; then ok "clang 22 --json: formats, container, requires data"
      else nok "clang 22 --json: formats, container, requires data" "$(cat json.err)"; fi
    else
      skip "python3 not installed: JSON not checked"
    fi
    "$DUMP" --needs prog22 >needs22.txt 2>&1; st=$?
    has needs22.txt "clang 22 --needs: exit $st, interp, NEEDED, versions, the image's NEEDED and flags" \
      '^interp /lib64/ld-linux-x86-64\.so\.2$' '^needed libomptarget\.so\.22\.1$' '^needed libomp\.so\.5$' \
      '^undef __tgt_target_kernel VERS1\.0 libomptarget\.so\.22\.1 strong$' \
      '^undef __tgt_register_lib VERS1\.0 libomptarget\.so\.22\.1 strong$' \
      '^image 0 format elf$' '^image 0 needed libomptarget\.so\.22\.1$' '^image 0 flags SYMBOLIC$'
    if grep -q '^runpath\|^rpath' needs22.txt; then nok "clang 22 binaries carry no RUNPATH" "$(grep path needs22.txt)"
    else ok "clang 22 binaries carry no RUNPATH or RPATH"; fi
    # Corrupted containers: a clear note, exit 2, no crash.
    off_sec=$(readelf -W -S prog22 | awk '$2 == ".llvm.offloading" { print $5 }')
    if [ -n "$off_sec" ]; then
      cp prog22 badver && printf '\002' | dd of=badver bs=1 seek=$((0x$off_sec + 4)) conv=notrunc 2>/dev/null
      "$DUMP" badver >badver.txt 2>&1; st=$?
      if [ $st -lt 128 ] && grep -q 'format: raw ELF$' badver.txt; then
        ok "clang 22 with a corrupted container version: the image is still read as raw ELF (exit $st)"
      else nok "clang 22 with a corrupted container version" "exit $st" "$(head -c 1500 badver.txt)"; fi
    else
      nok "clang 22 binary has a .llvm.offloading section"
    fi
  else
    for i in 1 2 3 4 5 6 7; do nok "clang-22 builds prog.c and virt.cpp" "$(tail -5 build22.log)"; done
  fi
fi

# A clang 16 container whose bytes are wrong: the image is not understood,
# said so, no crash; no plugin can run it, so the runtime would stop the
# program (exit status 125) and ompemu-dump exits 3.
if [ -f ctor16 ]; then
  off_sec=$(readelf -W -S ctor16 | awk '$2 == ".llvm.offloading" { print $5 }')
  cp ctor16 bad16-ver && printf '\002' | dd of=bad16-ver bs=1 seek=$((0x$off_sec + 4)) conv=notrunc 2>/dev/null
  "$DUMP" bad16-ver >bad16-ver.txt 2>&1; st=$?
  has bad16-ver.txt "clang 16, container version 2: named, exit 3 (was $st)" \
    'note: OffloadBinary version 2 is not supported \(version 1 expected\)' \
    'no device can run its target regions'
  [ $st -eq 3 ] || nok "clang 16 corrupted container exits 3" "exit $st"
  cp ctor16 bad16-size && printf '\377\377\377\177' | dd of=bad16-size bs=1 seek=$((0x$off_sec + 0x20 + 32)) conv=notrunc 2>/dev/null
  "$DUMP" bad16-size >bad16-size.txt 2>&1; st=$?
  has bad16-size.txt "clang 16, image size past the container: named (exit $st)" \
    'note: OffloadBinary image \(offset 0x90, [0-9]+ bytes\) is not inside the container'
  "$DUMP" --needs bad16-size >bad16-needs.txt 2>&1; st=$?
  has bad16-needs.txt "--needs on it: an error line for the image, exit 2 (was $st)" '^image 0 error OffloadBinary image'
else
  for i in 1 2 3; do skip "no clang 16 binary"; done
fi

# ------------------------------------------------------------------ flang 22
# flang's kernels call __kmpc_target_init/deinit, which the device link
# resolves against -lomptarget: link against a stand-in libomptarget.so
# that exports them (VERS1.0), the shape the pkg-config link will have.
if [ -z "${FLANG22:-}" ]; then
  for i in 1 2; do skip "flang-22 not installed"; done
else
  cat >stub.map <<'EOF'
VERS1.0 { global: __kmpc_target_init; __kmpc_target_deinit; __tgt_register_lib; __tgt_unregister_lib; __tgt_target_kernel; local: *; };
EOF
  cat >stub.c <<'EOF'
int __kmpc_target_init(void *env, void *dyn) { (void)env; (void)dyn; return -1; }
void __kmpc_target_deinit(void) {}
void __tgt_register_lib(void *d) { (void)d; }
void __tgt_unregister_lib(void *d) { (void)d; }
int __tgt_target_kernel(void *l, long d, int t, int tl, void *h, void *a) { return 1; }
EOF
  cat >f.f90 <<'EOF'
module mm
  integer :: gx = 3
  !$omp declare target(gx)
end module mm
program p
  use mm
  real, allocatable :: a(:)
  integer :: i
  allocate(a(10))
  a = 1.0
  !$omp target map(tofrom: a)
  do i = 1, 10
    a(i) = a(i) + gx
  end do
  !$omp end target
  print *, sum(a)
end program p
EOF
  mkdir -p stub && ln -sf /usr/lib/llvm-14/lib/libomp.so.5 stub/libomp.so
  if $CC -shared -fPIC -Wl,--version-script=stub.map -Wl,-soname,libomptarget.so -o stub/libomptarget.so stub.c &&
     "$FLANG22" $off f.f90 -Lstub -o f22 >buildf.log 2>&1; then
    "$DUMP" f22 >f22.txt 2>&1; st=$?
    has f22.txt "flang 22: exit $st, 56-byte entries, the module variable and the kernel" \
      '^llvm_offload_entries: .* of 56 bytes\)$' '\] variable +_QMmmEgx$' \
      '\] kernel +__omp_offloading_[0-9a-f_]+_(_QQmain|main)[_a-zA-Z0-9]*_l[0-9]+$' \
      'format: raw ELF inside an OffloadBinary'
    "$DUMP" --needs f22 >needsf.txt 2>&1
    has needsf.txt "flang 22 --needs: the image imports __kmpc_target_init from libomptarget" \
      '^image 0 undef __kmpc_target_init VERS1\.0 libomptarget\.so strong$' \
      '^image 0 undef __kmpc_target_deinit VERS1\.0 libomptarget\.so strong$'
  else
    for i in 1 2; do nok "flang-22 builds f.f90 against a stand-in runtime" "$(tail -5 buildf.log)"; done
  fi
fi

# --defines on ompemu's own runtime.
"$DUMP" --defines "$B/.libs/libomptarget.so" >defs.txt 2>&1
has defs.txt "--defines: ompemu's runtime exports at VERS1.0" \
  '^def __tgt_register_lib VERS1\.0$' '^def omp_target_alloc VERS1\.0$'
"$DUMP" --needs --json prog22 >/dev/null 2>&1; st=$?
if [ $st -eq 1 ]; then ok "--needs with --json is refused"; else nok "--needs with --json is refused" "exit $st"; fi

# Mutants of the newest binaries: no crash, no hang, in any mode.
if $CC -O1 -o mutate "$S/tests/tools/mutate.c" 2>mutate.err; then
  bad=
  mkdir -p mut
  for src in prog22 ctor16 f22; do
    [ -f "$src" ] || continue
    ./mutate "$src" "mut/$src." 60 12 || bad="$bad mutate-failed:$src"
    for f in mut/"$src".*; do
      for mode in --json --needs; do
        timeout 20 "$DUMP" $mode "$f" >/dev/null 2>&1; st=$?
        [ $st -ge 124 ] && bad="$bad $f$mode(exit:$st)"
      done
    done
  done
  if [ -z "$bad" ]; then ok "mutated clang 16/22 and flang 22 binaries: no crash, no hang"
  else nok "mutated binaries: no crash, no hang" "$bad"; fi
else
  nok "build the mutation helper" "$(cat mutate.err)"
fi
if readelf -d "$DUMP" 2>/dev/null | grep -q libasan; then
  skip "ompemu-dump is built with ASan: valgrind cannot run it"
elif command -v valgrind >/dev/null 2>&1; then
  vg=ok
  for f in prog22 ctor16 virt22 f22 bad16-size; do
    [ -f "$f" ] || continue
    for mode in --json --needs; do
      valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite "$DUMP" $mode "$f" >/dev/null 2>vg.out
      st=$?
      if [ $st -eq 99 ] || [ $st -ge 128 ]; then vg=bad; echo "# valgrind $mode $f: exit $st"; head -20 vg.out | sed 's/^/# /'; fi
    done
  done
  if [ $vg = ok ]; then ok "valgrind: no memory errors or leaks"; else nok "valgrind: no memory errors or leaks"; fi
else
  skip "valgrind not installed"
fi
echo "1..$n"
exit 0
