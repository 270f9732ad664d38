#!/bin/sh
# TAP tests of ompemu-dump: a gcc + ompemu-wrap fat binary with two images,
# a bare device image, a clang 14 fat binary (when CLANG14 is set) checked
# against readelf and the entry names in its source, the JSON form, and
# malformed inputs (truncated, random bytes, non-ELF, missing, corrupted
# header/section/descriptor fields) that must give an error and a non-zero
# exit, never a crash; one run under valgrind when it is installed.
set -u
B=${OMPEMU_BUILDDIR:?OMPEMU_BUILDDIR is not set}
S=${OMPEMU_SRCDIR:?OMPEMU_SRCDIR is not set}
CC=${CC:-cc}
CLANG14=${CLANG14:-}
WRAP=$B/ompemu-wrap
DUMP=$B/ompemu-dump
W=$B/tests/tools/work-dump
rm -rf "$W" && mkdir -p "$W" && cd "$W" || { echo "Bail out! no $W"; exit 1; }

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
check() { name=$1; shift; if "$@" >check.out 2>&1; then ok "$name"; else nok "$name" "command: $*" "$(head -c 3000 check.out)"; fi; }
has() { grep -Eq -- "$2" "$1"; }
CF="-std=gnu11 -I$S/include"

# A gcc-built fat binary: foreign image first, x86-64 second (stub runtime).
$CC $CF -shared -fPIC -o dev.so "$S/tests/lowered/hello.dev.c" &&
  cp dev.so amd.so && printf '\340\000' | dd of=amd.so bs=1 seek=18 conv=notrunc 2>/dev/null &&
  $CC $CF -shared -fPIC -o libomptarget.so "$S/tests/tools/stubrt.c" &&
  "$WRAP" -o wrap.o --offload-arch=gfx906 amd.so --offload-arch=x86-64 dev.so &&
  $CC $CF -o fat "$S/tests/tools/stubhost.c" wrap.o -L. -lomptarget -Wl,-rpath,"$W" &&
  $CC $CF -no-pie -o fat-nopie "$S/tests/tools/stubhost.c" wrap.o -L. -lomptarget -Wl,-rpath,"$W" ||
  { echo "Bail out! cannot build the test binaries"; exit 1; }
size_dev=$(wc -c <dev.so | tr -d ' ')

"$DUMP" fat >fat.txt 2>&1; st=$?
check "gcc fat binary: exit 0" test $st -eq 0
check "one descriptor found by its symbol, 2 images" has fat.txt '^descriptor 0 at 0x[0-9a-f]{16} \(found by symbol \.omp_offloading\.descriptor\): 2 image\(s\)'
check "host entries: kernel and variable with names, flags, sizes" sh -c "
  grep -Eq '^    \[0\] kernel +__omp_offloading_stub_kernel\$' fat.txt &&
  grep -Eq '^    \[1\] variable +stub_global\$' fat.txt &&
  grep -Eq 'flags none \(0x0\), size 4, addr 0x[0-9a-f]{16} \(stub_global\)' fat.txt"
check "image 0: arch gfx906, AMDGPU, entries not decoded" sh -c "
  grep -Eq '^  image 0: arch gfx906, ' fat.txt && grep -q 'machine 224 (AMDGPU), type DYN' fat.txt &&
  grep -q 'device entries: not read' fat.txt"
check "image 1: arch x86-64, size of dev.so, its device entry exported" sh -c "
  grep -Eq '^  image 1: arch x86-64, $size_dev bytes' fat.txt &&
  grep -q 'machine 62 (x86-64), type DYN' fat.txt &&
  grep -Eq '\[0\] kernel +__omp_offloading_lowered_hello_l12\$' fat.txt &&
  grep -Eq '\(__omp_offloading_lowered_hello_l12\), exported\$' fat.txt"
"$DUMP" fat-nopie >nopie.txt 2>&1
check "non-PIE binary gives the same entries and archs" sh -c "
  test \$(grep -c 'kernel\|variable' nopie.txt) -eq \$(grep -c 'kernel\|variable' fat.txt) &&
  grep -q 'arch gfx906' nopie.txt && grep -q 'arch x86-64' nopie.txt"
strip -o fat-stripped fat
"$DUMP" fat-stripped >stripped.txt 2>&1; st=$?
check "stripped binary: descriptor found by scanning, same entries" sh -c "
  test $st -eq 0 && grep -q '(found by scan): 2 image(s)' stripped.txt &&
  grep -q 'arch gfx906' stripped.txt && grep -Eq '\[0\] kernel +__omp_offloading_stub_kernel' stripped.txt"
if command -v python3 >/dev/null 2>&1; then
  "$DUMP" --json fat >fat.json
  check "--json: valid JSON with the same facts" python3 -c "
import json,sys
d=json.load(open('fat.json'))
assert d['kind']=='fat binary', d['kind']
ds=d['descriptors']; assert len(ds)==1
h=ds[0]['host_entries']; assert [e['name'] for e in h]==['__omp_offloading_stub_kernel','stub_global']
assert [e['kind'] for e in h]==['kernel','variable'] and h[1]['size']==4
im=ds[0]['images']; assert [i['arch'] for i in im]==['gfx906','x86-64']
assert im[0]['image']['machine']==224 and im[1]['image']['machine']==62
assert im[1]['size']==$size_dev
assert im[1]['image']['entries'][0]['exported'] is True
"
else
  skip "python3 not installed: JSON not validated"
fi
$CC $CF -shared -fPIC -DAS_SHARED_LIBRARY -o libfat.so "$S/tests/tools/stubhost.c" wrap.o -L. -lomptarget >/dev/null 2>&1
"$DUMP" libfat.so >dso.txt 2>&1; st=$?
check "shared library with its own descriptor: same images and entries" sh -c "
  test $st -eq 0 && grep -q '^libfat.so: fat binary (ELF64 x86-64, DYN)' dso.txt &&
  grep -q ': 2 image(s)' dso.txt && grep -q 'arch gfx906' dso.txt &&
  grep -Eq '\[1\] variable +stub_global' dso.txt"
"$WRAP" -o hello-wrap.o dev.so &&
  $CC $CF -I"$S/tests/lowered" -o hello "$S/tests/lowered/hello.host.c" hello-wrap.o -L. -lomptarget -Wl,-rpath,"$W" >/dev/null 2>&1
"$DUMP" hello >hello.txt 2>&1; st=$?
check "matching host and device tables: paired by name and by position" sh -c "
  test $st -eq 0 && grep -q 'pairing: by name 1 of 1 host entries found; by position (LLVM 14) the same' hello.txt &&
  LOWERED_EXPECT=fallback ./hello | grep -q 'hello: ok'"
"$DUMP" wrap.o >obj.txt 2>&1; st=$?
check "the wrapper object itself: descriptor, 2 images with archs, bounds bound when linked" sh -c "
  test $st -eq 0 && grep -q 'relocatable object with a descriptor (wrapper)' obj.txt &&
  grep -q 'host entries __start_omp_offloading_entries..__stop_omp_offloading_entries (bound when linked)' obj.txt &&
  grep -q 'image 0: arch gfx906, $(wc -c <amd.so | tr -d ' ') bytes' obj.txt &&
  grep -q 'image 1: arch x86-64, $size_dev bytes' obj.txt"
$CC $CF -c -o host.o "$S/tests/tools/stubhost.c"
"$DUMP" host.o >hostobj.txt 2>&1; st=$?
check "a host object's own entries table" sh -c "
  test $st -eq 0 && grep -q 'entries (2):' hostobj.txt &&
  grep -Eq '\[0\] kernel +__omp_offloading_stub_kernel' hostobj.txt &&
  grep -Eq 'size 4, addr 0x[0-9a-f]+ \(stub_global\)' hostobj.txt"
"$DUMP" libomptarget.so >plain.txt 2>&1; st=$?
check "a library without offload data: says so (exit 2), lists nothing" sh -c "
  test $st -eq 2 && grep -q 'ELF file without offload data' plain.txt &&
  grep -q 'note: no descriptor and no omp_offloading_entries or llvm_offload_entries section found' plain.txt &&
  test \$(wc -l < plain.txt) -eq 2"
"$DUMP" dev.so >bare.txt 2>&1; st=$?
check "bare device image: its entries and needs" sh -c "
  test $st -eq 0 && grep -q '^dev.so: device image (ELF64 x86-64, DYN)' bare.txt &&
  grep -Eq '\[0\] kernel +__omp_offloading_lowered_hello_l12' bare.txt &&
  grep -q '^needs symbols' bare.txt"

# A clang 14 fat binary, compared with readelf and the source.
if [ -n "$CLANG14" ] && command -v "$CLANG14" >/dev/null 2>&1; then
  cat >cl.c <<'EOF'
#include <stdio.h>
int gto = 3;
#pragma omp declare target to(gto)
int glink[4];
#pragma omp declare target link(glink)
int main(void) {
  int a = 1;
#pragma omp target map(tofrom: a)
  a += gto;
#pragma omp target map(tofrom: glink[0:4])
  glink[1] = 7;
  printf("%d\n", a);
  return 0;
}
EOF
  if "$CLANG14" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -save-temps -o cl cl.c >clang.out 2>&1; then
    "$DUMP" cl >cl.txt 2>&1; st=$?
    secsz=$(readelf -W -S cl | grep ' omp_offloading_entries ' | awk '{for(i=1;i<=NF;i++) if ($i=="PROGBITS") print $(i+3)}')
    nsec=$(( 0x${secsz:-0} / 32 ))
    imgsize=$(readelf -W -s cl | awk '$NF==".omp_offloading.device_image" {print $3}')
    devfile=$(ls *openmp-x86_64-pc-linux-gnu 2>/dev/null | head -n 1)
    check "clang 14: exit 0, one descriptor, one image" sh -c "test $st -eq 0 && grep -q ': 1 image(s)' cl.txt"
    check "clang 14: host entry count equals omp_offloading_entries size / 32 ($nsec)" sh -c "
      test $nsec -gt 0 && grep -q 'host entries ($nsec):' cl.txt"
    check "clang 14: entries named as in the source (to, link, 2 kernels)" sh -c "
      grep -Eq '\] variable +gto\$' cl.txt &&
      grep -Eq '\] link +glink_decl_tgt_ref_ptr\$' cl.txt && grep -q 'flags LINK (0x1), size 8' cl.txt &&
      test \$(grep -Ec '^    \[[0-9]+\] kernel +__omp_offloading_[0-9a-f]+_[0-9a-f]+_main_l(8|10)\$' cl.txt) -eq 2"
    check "clang 14: image size equals readelf's .omp_offloading.device_image ($imgsize)" sh -c "
      test -n '$imgsize' && grep -Eq '^  image 0: arch \(no image info\), $imgsize bytes' cl.txt"
    check "clang 14: device image needs libomp.so.5, as readelf -d says" sh -c "
      readelf -d '$devfile' | grep -q 'libomp.so.5' && grep -q 'needs libraries (.*libomp.so.5' cl.txt"
    check "clang 14: device table has no link entry (ABI 10): 3 device entries" sh -c "
      grep -q 'device entries (3):' cl.txt && ! grep -Eq '^      \[[0-9]+\] link' cl.txt"
    check "clang 14: the link entry breaks LLVM 14's positional pairing (ABI 9)" sh -c "
      grep -q 'pairing: by name 3 of 4 host entries found; by position (LLVM 14) 3 differ, and the table sizes differ' cl.txt &&
      grep -q 'glink_decl_tgt_ref_ptr: no device entry of that name' cl.txt &&
      grep -Eq 'host \[3\] __omp_offloading_.*_main_l10: LLVM 14 would pair it with device \[3\] \(none\)' cl.txt"
    "$DUMP" "$devfile" >cldev.txt 2>&1; st=$?
    check "clang 14 device image dumped bare: same 3 entries" sh -c "
      test $st -eq 0 && grep -q 'device entries (3):' cldev.txt && grep -Eq '\] variable +gto\$' cldev.txt"
    # ompemu-run's checks: the facts of --needs, and the symbols a library
    # lacks (the stub runtime defines none of LLVM 14's versioned ones).
    interp= rpath= runpath= bad= libs=
    eval "$("$DUMP" --run-facts cl)"
    check "clang 14: --run-facts gives the interpreter, RUNPATH and libomptarget.so" sh -c "
      test '$interp' = \"\$(readelf -W -l cl | sed -n 's/.*interpreter: \\(.*\\)]/\\1/p')\" &&
      test '$runpath' = /usr/lib/llvm-14/lib && test -z '$rpath$bad' &&
      case '$libs' in *' libomptarget.so'*) true ;; *) false ;; esac"
    "$DUMP" --run-missing cl libomptarget.so="$W/libomptarget.so" >miss.txt 2>&1
    check "clang 14: --run-missing names the first symbols a libomptarget lacks" sh -c "
      grep -Eq '^program libomptarget.so $W/libomptarget.so __tgt_[a-z_]+(, __tgt_[a-z_]+)*\$' miss.txt"
    "$DUMP" --run-missing cl libomptarget.so=/usr/lib/llvm-14/lib/libomptarget.so >miss.txt 2>&1
    check "clang 14: --run-missing prints nothing when LLVM 14's has them all" test ! -s miss.txt
  else
    nok "clang 14 fat binary builds" "$(head -20 clang.out)"
  fi
else
  for i in 1 2 3 4 5 6 7 8 9 10 11; do skip "CLANG14 not set"; done
fi

# Malformed inputs: exit 1 or 2 with a message or notes; >= 128 is a crash.
# robust NAME FILE: the run neither crashes nor exits 0.  FILE must exist
# (a corrupted copy that was never made would only test "missing file").
robust() {
  if [ "$1" != "missing file" ] && [ ! -e "$2" ]; then nok "$1" "$2 was not made"; return; fi
  "$DUMP" "$2" >mal.out 2>&1; st=$?
  if [ $st -eq 1 ] || [ $st -eq 2 ]; then ok "$1 (exit $st)"; else nok "$1" "exit $st" "$(head -5 mal.out)"; fi
}
# refused NAME FILE: the same, but no image of it can be read, so the
# runtime refuses the program (exit status 125) and the dump says so: 3.
refused() {
  "$DUMP" "$2" >mal.out 2>&1; st=$?
  if [ $st -eq 3 ] && grep -q "none of its [0-9]* device images\{0,1\} can be read" mal.out; then
    ok "$1 (exit $st)"
  else
    nok "$1" "exit $st (expected 3)" "$(head -5 mal.out)"
  fi
}
size=$(wc -c <fat-nopie | tr -d ' ')
for cut in 3 40 64 200 1000 $((size / 2)) $((size - 1)); do
  head -c $cut fat-nopie >trunc-$cut
  robust "truncated to $cut bytes" trunc-$cut
done
awk 'BEGIN { srand(42); for (i = 0; i < 8192; i++) printf "%c", int(rand() * 256) }' >random.bin
robust "random bytes" random.bin
{ head -c 64 fat-nopie; cat random.bin; } >elfhead-random.bin
robust "ELF header followed by random bytes" elfhead-random.bin
robust "a C source file" "$S/tests/tools/stubhost.c"
robust "missing file" does-not-exist
robust "a directory" .
: >empty.bin
robust "empty file" empty.bin
# patch FILE OFFSET HEXBYTES: overwrite bytes in place.
patch() {
  bytes=
  for pair in $(echo "$3" | sed 's/\(..\)/\1 /g'); do
    bytes="$bytes\\$(printf %03o "0x$pair")"
  done
  printf "$bytes" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
cp fat-nopie bad-shoff && patch bad-shoff 40 ffffffffffffff7f
robust "section header offset beyond the file" bad-shoff
shoff=$(readelf -h fat-nopie | awk '/Start of section headers/ {print $5}')
idx=$(readelf -W -S fat-nopie | grep ' omp_offloading_entries ' | sed -E 's/^ *\[ *([0-9]+)\].*/\1/')
cp fat-nopie bad-secoff && patch bad-secoff $((shoff + idx * 64 + 24)) 00000000ffffff00
cp fat-nopie bad-secsize && patch bad-secsize $((shoff + idx * 64 + 32)) 0000000000ffff00
# The descriptor (non-PIE: pointers are stored in the file).
dsym=$(readelf -W -s fat-nopie | awk '$NF==".omp_offloading.descriptor" {print $2}')
read -r daddr doff <<EOF2
$(readelf -W -S fat-nopie | awk '$2==".data.rel.ro" {print $4, $5}')
EOF2
descoff=$(( 0x$doff + 0x$dsym - 0x$daddr ))
cp fat-nopie bad-nimg && patch bad-nimg $descoff ffffff7f
cp fat-nopie bad-imgptr && patch bad-imgptr $((descoff + 8)) 4141414141414141
cp fat-nopie bad-entries && patch bad-entries $((descoff + 24)) 0000000000000000
isym=$(readelf -W -s fat-nopie | awk '$NF==".omp_offloading.device_images" {print $2}')
[ -n "$isym" ] && cp fat-nopie bad-imgend && patch bad-imgend $(( 0x$doff + 0x$isym - 0x$daddr + 8 )) 0000000000000000
robust "omp_offloading_entries sh_offset beyond the file" bad-secoff
robust "omp_offloading_entries sh_size huge" bad-secsize
robust "descriptor claims 2^31 images" bad-nimg
refused "descriptor image array pointer is garbage" bad-imgptr
robust "descriptor host entries end before begin" bad-entries
robust "image end before image start" bad-imgend

# Mutants: 150 each of a linked fat binary, the wrapper object and a device
# image, 12 random bytes changed (headers favoured); none may crash or hang.
if $CC -O1 -o mutate "$S/tests/tools/mutate.c" 2>mutate.err; then
  mkdir -p mut
  bad=
  for src in fat-nopie wrap.o dev.so; do
    ./mutate "$src" "mut/$src." 150 12 || bad="$bad mutate-failed:$src"
    for f in mut/"$src".*; do
      timeout 20 "$DUMP" --json "$f" >/dev/null 2>&1
      st=$?
      if [ $st -ge 124 ]; then bad="$bad $f(exit:$st)"; fi
    done
  done
  if [ -z "$bad" ]; then ok "450 mutated files: no crash, no hang"; else nok "450 mutated files: no crash, no hang" "$bad"; fi
else
  nok "build the mutation helper" "$(cat mutate.err)"
fi

if readelf -d "$DUMP" 2>/dev/null | grep -q 'libasan'; then
  skip "ompemu-dump is built with ASan (--enable-sanitizers): valgrind cannot run it"
elif command -v valgrind >/dev/null 2>&1; then
  vg_ok=1
  for f in fat bad-imgptr bad-secoff trunc-1000 random.bin wrap.o mut/fat-nopie.007 mut/wrap.o.011 mut/dev.so.003; do
    valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite "$DUMP" --json "$f" >/dev/null 2>vg.out
    st=$?
    if [ $st -eq 99 ] || [ $st -ge 128 ]; then vg_ok=0; echo "# valgrind on $f: exit $st"; sed 's/^/# /' vg.out | head -20; fi
  done
  if [ $vg_ok -eq 1 ]; then ok "valgrind: no memory errors or leaks on good and bad inputs"; else nok "valgrind: no memory errors or leaks on good and bad inputs"; fi
else
  skip "valgrind not installed"
fi
echo "1..$n"
exit 0
