#!/bin/sh
# TAP tests of ompemu-wrap: the object's sections, symbols and relocations
# as readelf shows them; linking it into a non-PIE executable, a PIE and a
# shared library and running them against a stub runtime that prints what
# it is handed; the weak __tgt_register_image_info; command-line spellings;
# and every error path (nothing written, old output kept, no temp files).
set -u
B=${OMPEMU_BUILDDIR:?OMPEMU_BUILDDIR is not set}
S=${OMPEMU_SRCDIR:?OMPEMU_SRCDIR is not set}
CC=${CC:-cc}
WRAP=$B/ompemu-wrap
W=$B/tests/tools/work-wrap
rm -rf "$W" && mkdir -p "$W" && cd "$W" || { echo "Bail out! no $W"; exit 1; }

n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
# check NAME CMD...: ok when CMD succeeds.
check() { name=$1; shift; if "$@" >check.out 2>&1; then ok "$name"; else nok "$name" "command: $*" "$(head -c 2000 check.out)"; fi; }
# has FILE REGEX: FILE has a line matching the extended REGEX.
has() { grep -Eq -- "$2" "$1"; }


CF="-std=gnu11 -I$S/include"

# Two device images: a real x86-64 one and a copy marked EM_AMDGPU.
$CC $CF -shared -fPIC -o dev.so "$S/tests/lowered/hello.dev.c" &&
  cp dev.so amd.so && printf '\340\000' | dd of=amd.so bs=1 seek=18 conv=notrunc 2>/dev/null ||
  { echo "Bail out! cannot build device images"; exit 1; }
size_dev=$(wc -c <dev.so | tr -d ' ')
size_amd=$(wc -c <amd.so | tr -d ' ')

check "--help prints the synopsis" sh -c "'$WRAP' --help | grep -q 'ompemu-wrap \[--target=TRIPLE\] -o OUT.o'"
check "--version prints the version" sh -c "'$WRAP' --version | grep -Eq '^ompemu-wrap .* [0-9]+\.[0-9]+'"
check "wrap two images" "$WRAP" --target=x86_64-pc-linux-gnu -o out.o \
  --offload-arch=gfx906 amd.so --offload-arch=x86-64 dev.so

readelf -W -S out.o >sec.txt; readelf -W -s out.o >sym.txt; readelf -W -r out.o >rel.txt
readelf -h out.o >hdr.txt
check "ELF64 x86-64 relocatable" sh -c "grep -q 'REL (Relocatable file)' hdr.txt && grep -q 'X86-64' hdr.txt && grep -q 'ELF64' hdr.txt"
# section NAME TYPE FLAGS ALIGN
sec() { has sec.txt "\] $1 +$2 +[0-9a-f]+ [0-9a-f]+ [0-9a-f]+ [0-9a-f]+ +$3 +[0-9]+ +[0-9]+ +$4\$"; }
check "section .text.startup PROGBITS AX align 16" sec '\.text\.startup' PROGBITS AX 16
check "section .rodata (images) PROGBITS A align 16" sec '\.rodata' PROGBITS A 16
check "section .data.rel.ro (array, descriptor, infos) WA" sec '\.data\.rel\.ro' PROGBITS WA 16
check "section .offload_arch_list PROGBITS A" sec '\.offload_arch_list' PROGBITS A 1
check "section omp_offloading_entries WA, empty" sh -c "grep -Eq '\] omp_offloading_entries +PROGBITS +0+ [0-9a-f]+ 0+ ' sec.txt && grep -Eq 'omp_offloading_entries .* WA +0 +0 +8\$' sec.txt"
check "section .init_array.1 INIT_ARRAY, .fini_array.1 FINI_ARRAY" sh -c "grep -Eq '\] \.init_array\.1 +INIT_ARRAY .* WA +0 +0 +8\$' sec.txt && grep -Eq '\] \.fini_array\.1 +FINI_ARRAY .* WA +0 +0 +8\$' sec.txt"
check "section .note.GNU-stack (non-executable stack)" sh -c "grep -Eq '\] \.note\.GNU-stack +PROGBITS' sec.txt"

# sym SIZE TYPE BIND VIS NDX-REGEX NAME
sym() { has sym.txt "^ +[0-9]+: [0-9a-f]+ +$1 $2 +$3 +$4 +$5 $6\$"; }
check "image symbols sized as the files" sh -c "
  grep -Eq ' $size_amd OBJECT +LOCAL +DEFAULT +[0-9]+ \.omp_offloading\.device_image\$' sym.txt &&
  grep -Eq ' $size_dev OBJECT +LOCAL +DEFAULT +[0-9]+ \.omp_offloading\.device_image\.1\$' sym.txt"
check "image array: 2 x 32 bytes" sym 64 OBJECT LOCAL DEFAULT '[0-9]+' '\.omp_offloading\.device_images'
check "descriptor: 32 bytes" sym 32 OBJECT LOCAL DEFAULT '[0-9]+' '\.omp_offloading\.descriptor'
check "arch strings __offload_arch, __offload_arch.1" sh -c "grep -Eq ' 7 OBJECT +LOCAL .* __offload_arch\$' sym.txt && grep -Eq ' 7 OBJECT +LOCAL .* __offload_arch\.1\$' sym.txt"
check "image infos .offload_image_info[.1]: 32 bytes" sh -c "grep -Eq ' 32 OBJECT +LOCAL .* \.offload_image_info\$' sym.txt && grep -Eq ' 32 OBJECT +LOCAL .* \.offload_image_info\.1\$' sym.txt"
check "hidden zero-sized dummy entry" sym 0 OBJECT GLOBAL HIDDEN '[0-9]+' '__dummy\.omp_offloading\.entry'
check "hidden undefined __start_/__stop_omp_offloading_entries" sh -c "grep -Eq 'NOTYPE +GLOBAL +HIDDEN +UND __start_omp_offloading_entries\$' sym.txt && grep -Eq 'NOTYPE +GLOBAL +HIDDEN +UND __stop_omp_offloading_entries\$' sym.txt"
check "undefined __tgt_register_lib / __tgt_unregister_lib, weak __tgt_register_image_info" sh -c "
  grep -Eq 'GLOBAL +DEFAULT +UND __tgt_register_lib\$' sym.txt &&
  grep -Eq 'GLOBAL +DEFAULT +UND __tgt_unregister_lib\$' sym.txt &&
  grep -Eq 'WEAK +DEFAULT +UND __tgt_register_image_info\$' sym.txt"
check "ctor and dtor functions with sizes" sh -c "
  grep -Eq ' [1-9][0-9]* FUNC +LOCAL +DEFAULT +[0-9]+ \.omp_offloading\.descriptor_reg\$' sym.txt &&
  grep -Eq ' [1-9][0-9]* FUNC +LOCAL +DEFAULT +[0-9]+ \.omp_offloading\.descriptor_unreg\$' sym.txt"
check "dummy entry lives in omp_offloading_entries" sh -c "
  ndx=\$(grep -E '\] omp_offloading_entries ' sec.txt | sed -E 's/^ *\[ *([0-9]+)\].*/\1/') &&
  grep -Eq \" \$ndx __dummy\\.omp_offloading\\.entry\\\$\" sym.txt"

check "relocations in .text.startup: GOTPCREL, 4 x PC32, 2 x PLT32" sh -c "
  sed -n '/rela.text.startup/,/^\$/p' rel.txt >t.rel &&
  grep -Eq 'R_X86_64_GOTPCREL .* __tgt_register_image_info - 4' t.rel &&
  test \$(grep -c 'R_X86_64_PC32' t.rel) -eq 4 &&
  grep -Eq 'R_X86_64_PLT32 .* __tgt_register_lib - 4' t.rel &&
  grep -Eq 'R_X86_64_PLT32 .* __tgt_unregister_lib - 4' t.rel"
check "relocations in .data.rel.ro: 13 x R_X86_64_64 (images, bounds, archs)" sh -c "
  sed -n '/rela.data.rel.ro/,/^\$/p' rel.txt >d.rel &&
  test \$(grep -c 'R_X86_64_64' d.rel) -eq 13 &&
  test \$(grep -c '__start_omp_offloading_entries + 0' d.rel) -eq 3 &&
  test \$(grep -c '__stop_omp_offloading_entries + 0' d.rel) -eq 3 &&
  grep -Eq '\.omp_offloading\.device_image\.1 \+ $(printf %x "$size_dev")\$' d.rel"
check ".eh_frame: a CIE and one FDE per function, sized as the functions" sh -c "
  grep -Eq '\] \.eh_frame +X86_64_UNWIND .* A +0 +0 +8\$' sec.txt &&
  readelf --debug-dump=frames out.o > frames.txt &&
  test \$(grep -c ' FDE ' frames.txt) -eq 2 &&
  regsz=\$(printf %016x \$(awk '\$NF==\".omp_offloading.descriptor_reg\" {print \$3}' sym.txt)) &&
  grep -q \"pc=0000000000000000..\$regsz\" frames.txt &&
  test \$(grep -c 'R_X86_64_PC32 .* \.omp_offloading\.descriptor_\(un\)\?reg + 0' rel.txt) -eq 2"
check "init/fini arrays point at the ctor/dtor" sh -c "
  sed -n '/rela.init_array.1/,/^\$/p' rel.txt | grep -q 'R_X86_64_64 .* \.omp_offloading\.descriptor_reg + 0' &&
  sed -n '/rela.fini_array.1/,/^\$/p' rel.txt | grep -q 'R_X86_64_64 .* \.omp_offloading\.descriptor_unreg + 0'"

# Link and run against stub runtimes.
$CC $CF -shared -fPIC -DWITH_IMAGE_INFO -o libomptarget.so "$S/tests/tools/stubrt.c" &&
  mkdir -p old && $CC $CF -shared -fPIC -o old/libomptarget.so "$S/tests/tools/stubrt.c" ||
  { echo "Bail out! cannot build the stub runtimes"; exit 1; }
# expect FILE: the stub's report for out.o.
expect() {
  has "$1" '^image_info version=1 image=0 of=2 arch=gfx906$' &&
    has "$1" '^image_info version=1 image=1 of=2 arch=x86-64$' &&
    has "$1" '^register_lib images=2 entries=2$' &&
    has "$1" '^unwind_through_ctor=1$' &&
    has "$1" "^image 0 size=$size_amd magic=ELF aligned16=1 same_entries=1\$" &&
    has "$1" "^image 1 size=$size_dev magic=ELF aligned16=1 same_entries=1\$" &&
    has "$1" '^entry __omp_offloading_stub_kernel size=0 flags=0$' &&
    has "$1" '^entry stub_global size=4 flags=0$' &&
    has "$1" '^unregister_lib same=1$' &&
    [ "$(grep -n . "$1" | grep -m1 register_lib | cut -d: -f1)" -gt 2 ] &&
    tail -n 1 "$1" | grep -q '^unregister_lib same=1$'
}
for mode in no-pie pie; do
  if $CC $CF -$mode $( [ $mode = pie ] && echo -fPIE ) -o "prog-$mode" "$S/tests/tools/stubhost.c" out.o -L. -lomptarget -Wl,-rpath,"$W" >link.out 2>&1 &&
     "./prog-$mode" >run-$mode.txt 2>&1 && expect run-$mode.txt && has run-$mode.txt '^main ran$'; then
    ok "linked into a $mode executable: registers 2 images and 2 entries, unregisters at exit"
  else
    nok "linked into a $mode executable: registers 2 images and 2 entries, unregisters at exit" "$(cat link.out run-$mode.txt 2>/dev/null | head -20)"
  fi
done
for ld in gold lld; do
  if ! command -v ld.$ld >/dev/null 2>&1; then
    n=$((n + 1)); echo "ok $n # SKIP no ld.$ld to link with"
  elif $CC $CF -fuse-ld=$ld -o prog-$ld "$S/tests/tools/stubhost.c" out.o -L. -lomptarget -Wl,-rpath,"$W" >link.out 2>&1 &&
       "./prog-$ld" >run-$ld.txt 2>&1 && expect run-$ld.txt; then
    ok "linked with ld.$ld: registers and unregisters"
  else
    nok "linked with ld.$ld: registers and unregisters" "$(cat link.out run-$ld.txt 2>/dev/null | head -20)"
  fi
done
check "the non-PIE one is ET_EXEC, the PIE one ET_DYN" sh -c "readelf -h prog-no-pie | grep -q 'EXEC' && readelf -h prog-pie | grep -q 'DYN'"
printf 'int stub_lib_value(void);\nint main(void) { return stub_lib_value() == 43 ? 0 : 1; }\n' >libmain.c
if $CC $CF -shared -fPIC -DAS_SHARED_LIBRARY -o libstubhost.so "$S/tests/tools/stubhost.c" out.o -L. -lomptarget -Wl,-rpath,"$W" >link.out 2>&1 &&
   $CC -o libmain libmain.c -L. -lstubhost -Wl,-rpath,"$W" >>link.out 2>&1 &&
   ./libmain >run-so.txt 2>&1 && expect run-so.txt; then
  ok "linked into a shared library: registers and unregisters"
else
  nok "linked into a shared library: registers and unregisters" "$(cat link.out run-so.txt 2>/dev/null | head -20)"
fi
if LD_LIBRARY_PATH="$W/old" ./libmain >run-old.txt 2>&1 && ! has run-old.txt image_info &&
   has run-old.txt '^register_lib images=2 entries=2$' && has run-old.txt '^unregister_lib same=1$'; then
  ok "runtime without __tgt_register_image_info (LLVM 14): call skipped, still registers"
else
  nok "runtime without __tgt_register_image_info (LLVM 14): call skipped, still registers" "$(head -20 run-old.txt)"
fi

# Spellings of the command line in docs/offload-wrapper.md; an image
# without an arch.
check "-o=OUT -target TRIPLE spelling, image without arch" sh -c "
  '$WRAP' -target x86_64-unknown-linux-gnu -o=alt.o dev.so && readelf -W -s alt.o > alt.txt &&
  grep -q ' \.offload_image_info\$' alt.txt && ! grep -q '__offload_arch' alt.txt"

# Errors: non-zero exit, a message, no output, no temp files left.
echo old >keep.o
# fails NAME REGEX ARGS...: exits 1, says REGEX, keep.o intact, no temp left.
fails() {
  name=$1 re=$2; shift 2
  "$WRAP" "$@" >err.out 2>&1; st=$?
  if [ $st -eq 1 ] && grep -Eq -- "$re" err.out && [ "$(cat keep.o)" = old ] &&
     [ -z "$(ls -A . | grep '^\.keep\.o\.')" ]; then
    ok "$name"
  else
    nok "$name" "exit $st" "$(cat err.out)"
  fi
}
fails "missing image" "cannot open image 'nothere.so'" -o keep.o nothere.so
printf 'not an elf' >text.bin
fails "non-ELF image refused" "is not an ELF file .*--allow-non-elf" -o keep.o text.bin
: >empty.bin
fails "empty image refused" "image 'empty.bin' is empty" -o keep.o empty.bin
fails "no images" "no device images given" -o keep.o
fails "no output" "no output file" dev.so
fails "unsupported target" "target 'aarch64-unknown-linux-gnu' is not supported" --target=aarch64-unknown-linux-gnu -o keep.o dev.so
fails "--offload-arch without an image" "not followed by an image" -o keep.o dev.so --offload-arch=gfx90a
fails "unknown option" "unknown option '--frobnicate'" --frobnicate -o keep.o dev.so
fails "a directory as image" "not a regular file" -o keep.o .
"$WRAP" -o /nonexistent-dir/out.o dev.so >err.out 2>&1; st=$?
if [ $st -eq 1 ] && grep -q "cannot create" err.out; then ok "unwritable output directory"; else nok "unwritable output directory" "exit $st" "$(cat err.out)"; fi
check "--allow-non-elf embeds any bytes" sh -c "'$WRAP' --allow-non-elf -o any.o text.bin && readelf -W -s any.o | grep -Eq ' 10 OBJECT +LOCAL .* \.omp_offloading\.device_image\$'"
if readelf -d "$WRAP" 2>/dev/null | grep -q 'libasan'; then
  n=$((n + 1)); echo "ok $n # SKIP ompemu-wrap is built with ASan (--enable-sanitizers): valgrind cannot run it"
elif command -v valgrind >/dev/null 2>&1; then
  vg=0
  valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
    "$WRAP" -o vg.o --offload-arch=gfx906 amd.so dev.so >vg.out 2>&1 || vg=1
  readelf -W -s vg.o | grep -q '__offload_arch$' || vg=1
  valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
    "$WRAP" -o vg2.o text.bin >>vg.out 2>&1; [ $? -eq 1 ] || vg=1
  if [ $vg -eq 0 ]; then ok "valgrind: no memory errors or leaks (success and error paths)"; else nok "valgrind: no memory errors or leaks (success and error paths)" "$(head -20 vg.out)"; fi
else
  n=$((n + 1)); echo "ok $n # SKIP valgrind not installed"
fi
echo "1..$n"
exit 0
