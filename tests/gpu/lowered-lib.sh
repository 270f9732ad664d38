# Shared part of the end-to-end runners that take the hand-lowered programs
# of tests/lowered through a GPU plugin on its test double
# (tests/fake-cuda/e2e.sh, tests/fake-hsa/hsa-lowered.sh).  Sourced after
# the runner has set B (build dir), S (source dir), W (its work dir) and
# NTESTS, and printed the plan.  Gives: skip_all, enter_workdir, step,
# report, prog, end_tests, and CFLAGS_L, LIBS, T, F, log, n.
T=$S/tests/lowered
F=$S/tests/lowered/fptr
CFLAGS_L="-std=gnu11 -Wall -O1 -g -I$S/include -I$T"
LIBS="-L$B/.libs -lomptarget -Wl,-rpath,$B/.libs"
log=$W/step.log
n=0

# skip_all WHY: every planned test skips (what the runner needs is missing).
skip_all() {
  i=1
  while [ $i -le $NTESTS ]; do
    echo "ok $i # SKIP $1"
    i=$((i + 1))
  done
  exit 0
}
# A fresh $W as the current directory.
enter_workdir() {
  rm -rf "$W" && mkdir -p "$W" && cd "$W" || { echo "Bail out! cannot create $W"; exit 1; }
}
# report NAME STATUS: the next TAP line; on failure the step log's tail.
report() {
  n=$((n + 1))
  if [ "$2" -eq 0 ]; then
    echo "ok $n - $1"
  else
    echo "not ok $n - $1"
    sed 's/^/# /' "$log" | tail -40
  fi
}
# step CMD...: run CMD with its output in the step log.
step() { echo "+ $*" >>"$log"; "$@" >>"$log" 2>&1; }
# prog NAME: tests/lowered/NAME.host.c + wrap-NAME.o -> NAME.
prog() { step "$CC" $CFLAGS_L -o "$1" "$T/$1.host.c" "wrap-$1.o" $LIBS; }
# Last line: say so when fewer tests ran than planned.
end_tests() {
  [ $n -eq $NTESTS ] || echo "# ran $n of $NTESTS"
  exit 0
}
