#!/bin/sh
# TAP test: GDB sees code loaded by the emu loader through the JIT
# interface (breakpoint by name on a device function, backtrace through
# device frames, and a static function known only from .symtab).
echo "1..3"
if ! command -v gdb >/dev/null 2>&1; then
  for i in 1 2 3; do echo "ok $i # SKIP gdb not installed"; done
  exit 0
fi
tmp=$(mktemp -d /tmp/loader_gdb.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -shared -fPIC -O1 -o "$tmp/good.so" \
  "$OMPEMU_SRCDIR/tests/unit/images/good.c" -lm || { echo "Bail out! cannot build image"; exit 1; }
try="$OMPEMU_BUILDDIR/tests/unit/loader_try"
run_gdb() {
  ASAN_OPTIONS=detect_leaks=0 timeout 120 gdb -nx -batch -ex 'set breakpoint pending on' \
    -ex "break $1" -ex run -ex bt -ex continue \
    --args "$try" "$tmp/good.so" "$2" >"$tmp/out" 2>&1
}
run_gdb impl_b call_ifn_pub
if grep -q 'ptrace' "$tmp/out" && ! grep -q 'Breakpoint 1,' "$tmp/out"; then
  for i in 1 2 3; do echo "ok $i # SKIP gdb cannot trace here"; done
  exit 0
fi
if grep -q '^Breakpoint 1, 0x0000554000[0-9a-f]* in impl_b ()' "$tmp/out"; then
  echo "ok 1 - breakpoint by name on a static device function"
else
  echo "not ok 1 - breakpoint by name on a static device function"; sed 's/^/# /' "$tmp/out"
fi
if grep -q '^#1  0x0000554000[0-9a-f]* in call_ifn_pub ()' "$tmp/out" &&
   grep -q '^#2 .* in main ' "$tmp/out"; then
  echo "ok 2 - backtrace names device frames and unwinds to the host"
else
  echo "not ok 2 - backtrace names device frames and unwinds to the host"; sed 's/^/# /' "$tmp/out"
fi
if grep -q '^call_ifn_pub() = 88' "$tmp/out"; then
  echo "ok 3 - program continues and returns the device result"
else
  echo "not ok 3 - program continues and returns the device result"; sed 's/^/# /' "$tmp/out"
fi
