#!/bin/sh
# TAP tests: a program none of whose device images can run (a damaged
# image, an image for another kind of device, no plugin loaded) is not
# run on the host in the emulator's place: one `ompemu: error:` line says
# why and the program stops with exit status 125, in check mode too;
# OMP_TARGET_OFFLOAD=disabled still runs it on the host, as asked.
# ompemu-dump, asking the same runtime, names each image no plugin of the
# build can run, gives the same reason and exits 3.
set -u
B=${OMPEMU_BUILDDIR:?OMPEMU_BUILDDIR is not set}
RUN=$B/ompemu-run
W=$B/tests/tools/work-run-unusable
CLANG=${CLANG14:-}
rm -rf "$W" && mkdir -p "$W" && cd "$W" || { echo "Bail out! no $W"; exit 1; }
if [ -z "$CLANG" ] || ! command -v "$CLANG" >/dev/null 2>&1; then
  echo "1..0 # SKIP clang-14 not installed"
  exit 0
fi

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
# expect NAME STATUS TEXT CMD...: CMD exits STATUS, its stderr has TEXT and
# its stdout has "x=42" only when STATUS is 0 (the region ran somewhere).
expect() {
  name=$1 want=$2 text=$3; shift 3
  "$@" >out.txt 2>err.txt; st=$?
  ran=0; grep -q '^x=42$' out.txt && ran=1
  if [ "$st" = "$want" ] && { [ -z "$text" ] || grep -qF -- "$text" err.txt; } &&
     { [ "$want" = 0 ] || [ $ran = 0 ]; }; then
    ok "$name"
  else
    nok "$name" "exit $st (expected $want), stderr:" "$(head -c 1500 err.txt)" "stdout: $(head -c 300 out.txt)"
  fi
}

cat >hello.c <<'EOF'
#include <stdio.h>
int main(void) {
  int x = 1;
#pragma omp target map(tofrom: x)
  x += 41;
  printf("x=%d\n", x);
  return 0;
}
EOF
if ! "$CLANG" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu hello.c -o hello 2>cc.err; then
  echo "Bail out! clang-14 cannot build an offload program: $(head -c 500 cc.err)"
  exit 1
fi
# The device image is the second ELF header in the file.
at=$(grep -obUaP '\x7fELF' hello | sed -n '2s/:.*//p')
if [ -z "$at" ]; then
  echo "Bail out! no device image found in the program"
  exit 1
fi
poke() { # FILE OFFSET BYTE(octal)
  printf "\\$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
cp hello nomagic && poke nomagic "$at" 0
cp hello cuda && poke cuda $((at + 18)) 276 && poke cuda $((at + 19)) 0 # EM_CUDA 190
cp hello arm && poke arm $((at + 18)) 50 && poke arm $((at + 19)) 0 # EM_ARM 40
cp hello exec && poke exec $((at + 16)) 2 # ET_EXEC

expect "an intact program runs" 0 "" "$RUN" ./hello
expect "a damaged image: said, not run on the host" 125 \
  "./nomagic: no device can run its target regions: every plugin loaded refused its image 0" "$RUN" ./nomagic
expect "a damaged image under --check: the same" 125 \
  "ompemu does not run them on the host instead (OMP_TARGET_OFFLOAD=disabled does)" "$RUN" --check ./nomagic
expect "an image for an NVIDIA GPU without a cuda device: said" 125 \
  "./cuda: no device can run its target regions: its image 0 is for nvidia devices" "$RUN" ./cuda
expect "an ARM image: said, not run on the host" 125 \
  "./arm: no device can run its target regions: every plugin loaded refused its image 0" "$RUN" ./arm
expect "an ET_EXEC image: said, not run on the host" 125 \
  "./exec: no device can run its target regions: every plugin loaded refused its image 0" "$RUN" ./exec
expect "OMP_TARGET_OFFLOAD=disabled: the host runs it, as asked" 0 "" \
  env OMP_TARGET_OFFLOAD=disabled "$RUN" ./nomagic
expect "OMP_TARGET_OFFLOAD=mandatory: said, then LLVM's mandatory failure" 134 \
  "./nomagic: no device can run its target regions: every plugin loaded refused its image 0" \
  env OMP_TARGET_OFFLOAD=mandatory "$RUN" ./nomagic
expect "a misspelt OMPEMU_PLUGINS: said, not run on the host" 125 \
  "OMPEMU_PLUGINS names plugin emu2, which cannot be used" env OMPEMU_PLUGINS=emu2 "$RUN" ./hello
expect "OMPEMU_NUM_DEVICES=0: the emu plugin's missing device is the reason" 125 \
  "./hello: no device can run its target regions: plugin emu has no device (OMPEMU_NUM_DEVICES=0)" \
  env OMPEMU_NUM_DEVICES=0 "$RUN" ./hello
# The cuda plugin of this build has no device without a GPU (and driver):
# named alone it is the reason; named with emu, a warning and emu runs it.
if [ -e "$B/.libs/libomptarget.rtl.cuda.so" ] &&
   OMPEMU_PLUGINS=cuda "$RUN" ./hello >out.txt 2>err.txt; [ $? = 125 ]; then
  expect "OMPEMU_PLUGINS=cuda without a GPU: the plugin's missing device is the reason" 125 \
    "./hello: no device can run its target regions: plugin cuda has no device (OMPEMU_PLUGINS=cuda)" \
    env OMPEMU_PLUGINS=cuda "$RUN" ./hello
  expect "OMPEMU_PLUGINS=cuda,emu without a GPU: a warning, emu runs it" 0 \
    "ompemu: warning: OMPEMU_PLUGINS names plugin cuda, which has no device: the run goes on without it" \
    env OMPEMU_PLUGINS=cuda,emu "$RUN" ./hello
  if grep -q 'error' err.txt; then
    nok "OMPEMU_PLUGINS=cuda,emu without a GPU: no error line" "$(head -c 1500 err.txt)"
  else
    ok "OMPEMU_PLUGINS=cuda,emu without a GPU: no error line"
  fi
  OMPEMU_PLUGINS=cuda "$B/ompemu-dump" hello >dump.txt 2>dump.err; st=$?
  if [ $st = 3 ] && [ ! -s dump.err ] &&
     grep -qF "no device can run its target regions: plugin cuda has no device" dump.txt; then
    ok "ompemu-dump, OMPEMU_PLUGINS=cuda without a GPU: the reason, nothing from the plugin on stderr"
  else
    nok "ompemu-dump, OMPEMU_PLUGINS=cuda without a GPU: the reason, nothing from the plugin on stderr" \
      "exit $st" "$(head -c 1500 dump.err)"
  fi
else
  for t in "OMPEMU_PLUGINS=cuda without a GPU" "OMPEMU_PLUGINS=cuda,emu without a GPU" \
           "OMPEMU_PLUGINS=cuda,emu: no error line" "ompemu-dump, OMPEMU_PLUGINS=cuda"; do
    n=$((n + 1)); echo "ok $n - $t # SKIP no cuda plugin built, or it has a device"
  done
fi

# dump_says NAME FILE STATUS TEXT...: ompemu-dump FILE exits STATUS and
# prints every TEXT.
dump_says() {
  name=$1 f=$2 want=$3; shift 3
  "$B/ompemu-dump" "$f" >dump.txt 2>dump.err; st=$?
  miss=
  for t in "$@"; do grep -qF -- "$t" dump.txt || miss="$miss [$t]"; done
  if [ "$st" = "$want" ] && [ -z "$miss" ]; then
    ok "$name"
  else
    nok "$name" "exit $st (expected $want), missing:$miss" "$(head -c 1500 dump.txt)" "$(head -c 300 dump.err)"
  fi
}
dump_says "ompemu-dump: an intact image runs on the emu plugin (exit 0)" hello 0 \
  "runs on: plugin emu"
for f in nomagic arm exec; do
  dump_says "ompemu-dump: the $f image: no plugin can run it (exit 3)" $f 3 \
    "runs on: no plugin of this build can run it" \
    "no device can run its target regions: every plugin loaded refused its image 0" \
    "(exit status 125)"
done
dump_says "ompemu-dump: the NVIDIA image: the runtime's reason (exit 3)" cuda 3 \
  "no device can run its target regions: its image 0 is for nvidia devices"
OMPEMU_NUM_DEVICES=0 dump_says "ompemu-dump, OMPEMU_NUM_DEVICES=0: the emu plugin has no device (exit 3)" \
  hello 3 "no device can run its target regions: plugin emu has no device (OMPEMU_NUM_DEVICES=0)"
# A descriptor whose one image is empty (its ImageEnd relocated to its
# ImageStart): the runtime's error about it names addresses of
# ompemu-dump's own process, which change from run to run; the dump says
# it in its own words, the same every time.
python3 - hello empty <<'EOF'
import struct, subprocess, sys
src, dst = sys.argv[1], sys.argv[2]
b = bytearray(open(src, 'rb').read())
nm = subprocess.run(['nm', src], capture_output=True, text=True).stdout
imgs = [int(l.split()[0], 16) for l in nm.splitlines()
        if l.endswith(' .omp_offloading.device_images')][0]
shoff, = struct.unpack_from('<Q', b, 0x28)
shentsize, shnum = struct.unpack_from('<HH', b, 0x3a)
rel = {}
for i in range(shnum):
    _, ty, _, _, off, sz, _, _, _, _ = struct.unpack_from('<IIQQQQIIQQ', b, shoff + i * shentsize)
    for r in (range(off, off + sz, 24) if ty == 4 else ()):
        rel[struct.unpack_from('<Q', b, r)[0]] = r
start, = struct.unpack_from('<q', b, rel[imgs] + 16)
struct.pack_into('<q', b, rel[imgs + 8] + 16, start)
open(dst, 'wb').write(b)
EOF
chmod +x empty
"$B/ompemu-dump" empty >dump1.txt 2>dump1.err; st1=$?
"$B/ompemu-dump" empty >dump2.txt 2>dump2.err; st2=$?
if [ $st1 = 3 ] && [ $st2 = 3 ] && ! grep -q 'ompemu: error:' dump1.err &&
   cmp -s dump1.txt dump2.txt && cmp -s dump1.err dump2.err &&
   grep -qF "none of its 1 device image can be read" dump1.txt; then
  ok "ompemu-dump, an empty image: its own note, no runtime error line, the same twice"
else
  nok "ompemu-dump, an empty image: its own note, no runtime error line, the same twice" \
    "exit $st1 $st2" "$(head -c 1500 dump1.err)" "$(diff dump1.txt dump2.txt | head -c 500)"
fi
expect "an empty image, the only one: said, not run on the host" 125 \
  "no device can run its target regions: none of its 1 device image can be read" "$RUN" ./empty
"$B/ompemu-dump" --json arm >dump.json 2>/dev/null; st=$?
if [ $st = 3 ] && python3 -c '
import json, sys
d = json.load(open("dump.json"))["descriptors"][0]
assert d["runnable"] is False and d["images"][0]["plugin"] is None
assert "refused its image 0" in d["refused"]' 2>dump.err; then
  ok "ompemu-dump --json: runnable false, no plugin, the reason (exit 3)"
else
  nok "ompemu-dump --json: runnable false, no plugin, the reason (exit 3)" "exit $st" "$(cat dump.err)"
fi
echo "1..$n"
exit 0
