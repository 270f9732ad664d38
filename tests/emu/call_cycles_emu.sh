#!/bin/sh
# TAP: no two object files of the emu plugin (libomptarget.rtl.emu.so, its
# loader included) call each other in a circle, checked with the project's
# tests/unit/call_cycles.sh on the objects make built
# ($EMU_PLUGIN_OBJECTS, relative to $OMPEMU_BUILDDIR); and that check finds
# a circle planted in two objects (a check that cannot fail is no check).
set -u
: "${OMPEMU_BUILDDIR:?}" "${OMPEMU_SRCDIR:?}"
check=$OMPEMU_SRCDIR/tests/unit/call_cycles.sh
echo "1..2"
if [ -z "${EMU_PLUGIN_OBJECTS:-}" ]; then
  echo "ok 1 # SKIP EMU_PLUGIN_OBJECTS is not set (run by make check)"
else
  set --
  for o in $EMU_PLUGIN_OBJECTS; do
    set -- "$@" "$OMPEMU_BUILDDIR/$o"
  done
  out=$(sh "$check" --name libomptarget.rtl.emu.so "$@" 2>&1)
  if [ $? -eq 0 ]; then
    echo "ok 1 - emu plugin: no call cycles between its $# object files"
  else
    echo "not ok 1 - emu plugin: object files call each other in a circle"
    echo "$out" | sed 's/^/# /'
  fi
fi
t=$(mktemp -d "${TMPDIR:-/tmp}/ompemu-cycles.XXXXXX") || exit 1
trap 'rm -rf "$t"' EXIT
printf 'int b(int);\nint a(int x) { return x ? b(x - 1) : 0; }\n' >"$t/a.c"
printf 'int a(int);\nint b(int x) { return a(x); }\nint c(void) { return 1; }\n' >"$t/b.c"
printf 'int c(void);\nint d(void) { return c(); }\n' >"$t/d.c"
if ${CC:-cc} -c -o "$t/a.o" "$t/a.c" && ${CC:-cc} -c -o "$t/b.o" "$t/b.c" &&
   ${CC:-cc} -c -o "$t/d.o" "$t/d.c"; then
  out=$(sh "$check" "$t/a.o" "$t/b.o" "$t/d.o" 2>&1)
  st=$?
  if [ $st -eq 1 ] && echo "$out" | grep -q "a.c -> .*b.c: b" &&
     echo "$out" | grep -q "b.c -> .*a.c: a" && ! echo "$out" | grep -q "d.c ->"; then
    echo "ok 2 - a circle planted in two objects is found, a one-way call is not"
  else
    echo "not ok 2 - the planted circle: status $st"
    echo "$out" | sed 's/^/# /'
  fi
else
  echo "not ok 2 - cannot compile the planted objects with ${CC:-cc}"
fi
exit 0
