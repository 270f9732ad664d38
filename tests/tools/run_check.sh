#!/bin/sh
# TAP tests of ompemu-run's checks (src/tools/ompemu-run.in): a program
# runs on ompemu's runtime whatever libomptarget name it NEEDs, and is
# refused (exit 125, one sentence naming the file or symbol) when another
# runtime would be loaded or a needed libomp/libomptarget symbol is
# missing.  The "LLVM runtimes" and "newer libomps" here are small gcc-built
# stand-ins with LLVM's sonames and version nodes, so the test needs no
# LLVM package; one case uses clang-22 and the private LLVM 22 tree when
# both are there.
set -u
B=${OMPEMU_BUILDDIR:?OMPEMU_BUILDDIR is not set}
S=${OMPEMU_SRCDIR:?OMPEMU_SRCDIR is not set}
CC=${CC:-cc}
RUN=$B/ompemu-run
W=$B/tests/tools/work-run-check
rm -rf "$W" && mkdir -p "$W/llvm" "$W/newomp" "$W/other" && cd "$W" ||
  { echo "Bail out! no $W"; exit 1; }

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
# expect NAME STATUS TEXT CMD...: CMD exits STATUS and its stderr has TEXT.
expect() {
  name=$1 want=$2 text=$3; shift 3
  "$@" >out.txt 2>err.txt; st=$?
  if [ "$st" = "$want" ] && { [ -z "$text" ] || grep -qF -- "$text" err.txt; } &&
     { [ "$want" != 125 ] || [ "$(grep -c '^ompemu-run: error:' err.txt)" = 1 ]; }; then
    ok "$name"
  else
    nok "$name" "exit $st (expected $want), stderr:" "$(head -c 1500 err.txt)" "stdout: $(head -c 300 out.txt)"
  fi
}

# Stand-in for an LLVM runtime: VERS1.0 exports; omp_get_num_devices
# says 42 so a program shows which runtime it ran on.
cat >rt.map <<'EOF'
VERS1.0 { global: __tgt_register_lib; __tgt_unregister_lib; omp_get_num_devices; __tgt_llvm_only; local: *; };
EOF
cat >fakert.c <<'EOF'
void __tgt_register_lib(void *d) { (void)d; }
void __tgt_unregister_lib(void *d) { (void)d; }
int omp_get_num_devices(void) { return 42; }
void __tgt_llvm_only(void) {}
EOF
# Stand-in for a newer libomp: version node VERSION, an entry point libomp
# 14 lacks.
cat >omp.map <<'EOF'
VERSION { global: __kmpc_dispatch_deinit; omp_get_max_threads; local: *; };
EOF
cat >newomp.c <<'EOF'
void __kmpc_dispatch_deinit(void *loc, int gtid) { (void)loc; (void)gtid; }
int omp_get_max_threads(void) { return 1; }
EOF
cat >prog.c <<'EOF'
#include <stdio.h>
int omp_get_num_devices(void);
int main(void) { printf("devices=%d\n", omp_get_num_devices()); return 0; }
EOF
cat >prog_llvm_only.c <<'EOF'
void __tgt_llvm_only(void);
int main(void) { __tgt_llvm_only(); return 0; }
EOF
cat >prog_newomp.c <<'EOF'
#include <stdio.h>
void __kmpc_dispatch_deinit(void *, int);
int omp_get_num_devices(void);
int main(void) { __kmpc_dispatch_deinit(0, 0); printf("devices=%d\n", omp_get_num_devices()); return 0; }
EOF
L=$W/llvm
build() { "$@" >>build.log 2>&1 || { echo "Bail out! $*: $(tail -3 build.log)"; exit 1; }; }
build $CC -shared -fPIC -Wl,--version-script=rt.map -Wl,-soname,libomptarget.so.22.1 -o "$L/libomptarget.so.22.1" fakert.c
build $CC -shared -fPIC -Wl,--version-script=rt.map -Wl,-soname,libomptarget.so.18 -o other/libomptarget.so.18 fakert.c
build $CC -shared -fPIC -Wl,--version-script=omp.map -Wl,-soname,libomp.so.5 -o newomp/libomp.so.5 newomp.c
ln -sf libomptarget.so.22.1 "$L/libomptarget.so"
ln -sf libomp.so.5 newomp/libomp.so

# Linked the way clang 22 links against Debian's packages: NEEDED
# libomptarget.so.22.1, no RUNPATH.
build $CC -o p22 prog.c -L"$L" -lomptarget
# The same with an RPATH (not a RUNPATH) to LLVM's directory.
build $CC -o p22-rpath prog.c -L"$L" -lomptarget -Wl,--disable-new-dtags -Wl,-rpath,"$L"
# An RPATH directory with a space in its name (ld.so --list prints the
# path whole: it must not be split there).
mkdir -p "$W/llvm dir" && cp "$L/libomptarget.so.22.1" "$W/llvm dir/"
build $CC -o p22-space prog.c -L"$L" -lomptarget -Wl,--disable-new-dtags -Wl,-rpath,"$W/llvm dir"
# ... and with a RUNPATH, as clang 14 and 16 link.
build $CC -o p22-runpath prog.c -L"$L" -lomptarget -Wl,--enable-new-dtags -Wl,-rpath,"$L"
# A name ompemu does not answer to.
build $CC -o p18 prog.c other/libomptarget.so.18
# A library of the program that needs LLVM's runtime through its RPATH.
build $CC -shared -fPIC -o libdep.so -x c /dev/null -L"$L" -Wl,--no-as-needed -lomptarget -Wl,--disable-new-dtags -Wl,-rpath,"$L"
# (the program itself NEEDs libomptarget.so: linked against ompemu's)
build $CC -o pdep prog.c -L. -Wl,--no-as-needed -ldep -Wl,-rpath,"$W" -L"$B/.libs" -lomptarget
# A symbol only LLVM's runtime has.
build $CC -o pllvm prog_llvm_only.c -L"$L" -lomptarget
# A libomp entry point libomp 14 lacks.
build $CC -o pnewomp prog_newomp.c -Lnewomp -lomp -L"$L" -lomptarget

echo "== ompemu-run checks" >&2
expect "clang-22-style program, LLVM's directory on LD_LIBRARY_PATH: runs on ompemu" 0 "" \
  env LD_LIBRARY_PATH="$L" "$RUN" ./p22
check_out() { if grep -q "$1" out.txt; then ok "$2"; else nok "$2" "stdout: $(cat out.txt)"; fi; }
# ompemu's omp_get_num_devices, not the stand-in's 42.
ON_OMPEMU='^devices=[0-9]$'
check_out "$ON_OMPEMU" "... on ompemu's runtime, not the stand-in's (42 devices)"
expect "without LD_LIBRARY_PATH too" 0 "" "$RUN" ./p22
expect "a RUNPATH to LLVM's directory does not outrank ompemu" 0 "" "$RUN" ./p22-runpath
check_out "$ON_OMPEMU" "... and it ran on ompemu"
expect "an RPATH to LLVM's directory is refused, naming the RPATH" 125 \
  "has the RPATH $L, which the dynamic loader searches before LD_LIBRARY_PATH, so it would load LLVM's $L/libomptarget.so.22.1" \
  "$RUN" ./p22-rpath
expect "an RPATH directory with a space in its name is refused too" 125 \
  "would load $W/llvm dir/libomptarget.so.22.1, another OpenMP offload runtime" \
  "$RUN" ./p22-space
expect "a program found through an empty PATH entry (the current directory) runs" 0 "" \
  env PATH=":$PATH" "$RUN" p22
check_out "$ON_OMPEMU" "... on ompemu's runtime"
expect "LD_PRELOAD of another runtime is refused" 125 \
  "LD_PRELOAD loads $L/libomptarget.so.22.1, another OpenMP offload runtime" \
  env LD_PRELOAD="$L/libomptarget.so.22.1" "$RUN" ./p22
expect "a library needing LLVM's runtime through its RPATH is refused, naming it" 125 \
  "$W/libdep.so, a library './pdep' loads, needs libomptarget.so.22.1, which resolves to $L/libomptarget.so.22.1" \
  "$RUN" ./pdep
expect "an unknown libomptarget name is refused" 125 \
  "needs libomptarget.so.18, a libomptarget name ompemu's runtime does not answer to" \
  "$RUN" ./p18
expect "a libomptarget symbol ompemu lacks is refused, naming it" 125 \
  "'./pllvm' needs __tgt_llvm_only from libomptarget.so.22.1, which ompemu's runtime" \
  "$RUN" ./pllvm
expect "a libomp entry point the libomp in use lacks is refused, naming it" 125 \
  "'./pnewomp' needs __kmpc_dispatch_deinit from libomp.so.5, which " \
  "$RUN" ./pnewomp
expect "... and runs once a libomp that has it is first in LD_LIBRARY_PATH" 0 "" \
  env LD_LIBRARY_PATH="$W/newomp" "$RUN" ./pnewomp
check_out "$ON_OMPEMU" "... on ompemu"
expect "OMPEMU_RUN_CHECK=0 starts it unchecked (the dynamic loader's own error)" 127 \
  "symbol lookup error" env OMPEMU_RUN_CHECK=0 "$RUN" ./pnewomp
printf '#!/bin/sh\necho script-ran\n' >script.sh && chmod +x script.sh
expect "a shell script is run without checks" 0 "" "$RUN" ./script.sh
check_out '^script-ran$' "... and it ran"

# A file libomp left in /dev/shm under the pid the program gets (a process
# killed before it could remove it) is gone when the program starts: libomp
# finding one reads /proc/PID/maps through stdio, moving the program's
# later heap blocks, so a checked run's host addresses would vary.
cat >prog_shm.c <<'EOF'
#include <stdio.h>
#include <unistd.h>
int main(void) {
  char p[96];
  snprintf(p, sizeof p, "/dev/shm/__KMP_REGISTERED_LIB_%d_%d", (int)getpid(), (int)getuid());
  puts(access(p, F_OK) == 0 ? "stale" : "clean");
  return 0;
}
EOF
build $CC -o pshm prog_shm.c -L"$B/.libs" -Wl,--no-as-needed -lomptarget -Wl,-rpath,"$B/.libs"
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
  expect "a stale libomp registration file of the program's pid is removed" 0 "" \
    sh -c 'echo $$ >pid.txt && touch "/dev/shm/__KMP_REGISTERED_LIB_$$_$(id -u)" && exec "$0" ./pshm' "$RUN"
  check_out '^clean$' "... before the program starts"
  rm -f "/dev/shm/__KMP_REGISTERED_LIB_$(cat pid.txt)_$(id -u)"
else
  skip "/dev/shm is not a writable directory here"
  skip "/dev/shm is not a writable directory here"
fi

# A device image that needs the newer libomp, embedded with ompemu-wrap.
build $CC -shared -fPIC -o dev.so -x c - -Lnewomp -lomp <<'EOF'
void __kmpc_dispatch_deinit(void *, int);
void kernel_uses_it(void) { __kmpc_dispatch_deinit(0, 0); }
EOF
build "$B/ompemu-wrap" -o wrap.o dev.so
build $CC -I"$S/include" -o pimg "$S/tests/tools/stubhost.c" wrap.o -L"$B/.libs" -lomptarget -Wl,-rpath,"$B/.libs"
expect "a device image needing a libomp entry point the libomp lacks is refused" 125 \
  "'./pimg' or its device images need __kmpc_dispatch_deinit from libomp.so.5" \
  "$RUN" ./pimg

# The real thing, when clang-22 and the private LLVM 22 tree are there.
if [ -n "${CLANG22:-}" ] && tree=$("$S/tests/compilers/provision.sh" --quiet --offline 22 2>/dev/null); then
  eval "$(sed 's/^/export /' "${tree#22 }/ompemu-llvm.env")"
  cat >sd.c <<'EOF'
#include <stdio.h>
int main(void) {
  int s = 0;
#pragma omp parallel for schedule(dynamic) reduction(+ : s)
  for (int i = 0; i < 10; i++) s += i;
  printf("%d\n", s);
  return s != 45;
}
EOF
  if "$CLANG22" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -I"$LLVM_RT_INCDIR" sd.c -L"$LLVM_RT_LIBDIR" -o sd22 >>build.log 2>&1; then
    expect "clang-22 schedule(dynamic) with libomp 14: refused, naming __kmpc_dispatch_deinit" 125 \
      "needs __kmpc_dispatch_deinit from libomp.so.5" env -u LD_LIBRARY_PATH "$RUN" ./sd22
    env LD_LIBRARY_PATH="$LLVM_RT_LIBDIR" "$RUN" ./sd22 >out.txt 2>err.txt
    if grep -q "libomptarget.so.22.1" err.txt; then
      nok "clang-22 program with LLVM 22's directory on LD_LIBRARY_PATH: never on LLVM's runtime" "$(cat err.txt)"
    elif grep -q '^45$' out.txt || grep -q "which ompemu's runtime" err.txt; then
      ok "clang-22 program with LLVM 22's directory on LD_LIBRARY_PATH: on ompemu or refused, never on LLVM's runtime"
    else
      nok "clang-22 program with LLVM 22's directory on LD_LIBRARY_PATH" "$(cat err.txt out.txt)"
    fi
  else
    nok "clang-22 builds sd.c the Debian way" "$(tail -5 build.log)"
  fi
else
  skip "clang-22 or the private LLVM 22 tree (tests/compilers/provision.sh 22) not available"
  skip "clang-22 or the private LLVM 22 tree not available"
fi

# The names are there, next to the runtime, as links to it.
missing=
for nm in libomptarget.so.16 libomptarget.so.19.1 libomptarget.so.22.1; do
  [ "$(readlink -f "$B/.libs/$nm")" = "$(readlink -f "$B/.libs/libomptarget.so")" ] || missing="$missing $nm"
done
if [ -z "$missing" ]; then ok "the build tree's .libs has libomptarget.so.16, .so.19.1, .so.22.1 -> libomptarget.so"
else nok "the build tree's .libs has the LLVM names" "missing or wrong:$missing"; fi
if [ -f "$B/.libs/libomptarget.devicertl.a" ] && [ "$(head -c 8 "$B/.libs/libomptarget.devicertl.a")" = '!<arch>' ]; then
  ok "an empty libomptarget.devicertl.a is there for clang 16 and 19 links"
else
  nok "an empty libomptarget.devicertl.a is there"
fi
echo "1..$n"
exit 0
