#!/bin/sh
# TAP: the timeline (OMPEMU_TIMELINE, LIBOMPTARGET_PROFILE) and the run
# summary (ompemu-run --summary, OMPEMU_SUMMARY) of clang-14 programs on
# the emu device.  Each timeline is parsed by tests/timeline/tl_check (a
# strict JSON parser and the trace-event rules), whose normalised listing
# the checks below read.  Skipped when clang-14 is not installed.
set -u
if [ -z "${CLANG14:-}" ]; then
  echo "1..0 # SKIP clang-14 not installed"
  exit 0
fi
: "${OMPEMU_BUILDDIR:?}" "${OMPEMU_SRCDIR:?}"
SRC=$OMPEMU_SRCDIR/tests/timeline
CHECK=$OMPEMU_BUILDDIR/tests/timeline/tl_check
RUN=$OMPEMU_BUILDDIR/ompemu-run
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ompemu-timeline.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "1..18"
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
  n=$((n + 1)); echo "not ok $n - $1"
  [ -n "${2:-}" ] && [ -s "$2" ] && tail -n 20 "$2" | sed 's/^/#   /'
  return 0
}
# check NAME COMMAND...: one TAP line for COMMAND's status.
check() { name=$1; shift; if "$@" >"$tmp/last" 2>&1; then ok "$name"; else not_ok "$name" "$tmp/last"; fi; }
# has FILE PATTERN [MIN]: FILE has at least MIN (default 1) lines matching
# the extended regular expression PATTERN.
has() {
  c=$(grep -cE -- "$2" "$1")
  [ "$c" -ge "${3:-1}" ] || { echo "$1: $c line(s) match '$2', want >= ${3:-1}"; return 1; }
}

# build NAME: compile NAME.c with the flags of its "// CFLAGS:" line.
build() {
  # shellcheck disable=SC2046
  "$CLANG14" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g \
    $(sed -n 's|^// CFLAGS: *||p' "$SRC/$1.c") "$SRC/$1.c" -o "$tmp/$1" \
    2>"$tmp/$1.cc.log"
}
for p in nowait_threads nowait_one device_fault many fatal; do
  build $p || { echo "Bail out! cannot compile $p.c"; cat "$tmp/$p.cc.log"; exit 1; }
done

# 1: the program runs and its timeline is valid trace-event JSON.
t=$tmp/nt
run_nt() {
  OMP_TARGET_OFFLOAD=mandatory OMPEMU_TIMELINE=$t.json "$RUN" "$tmp/nowait_threads" &&
    "$CHECK" "$t.json" >"$t.txt"
}
check "two host threads with nowait kernels: valid timeline" run_nt
ln=$(grep -n 'target teams distribute parallel for nowait' "$SRC/nowait_threads.c" | cut -d: -f1)
ln_a=$((ln)) ln_b=$(grep -n 'target map(tofrom: beta) nowait' "$SRC/nowait_threads.c" | cut -d: -f1)
tracks() {
  has "$t.txt" '^PROCESS pid=1 name=host$' &&
    has "$t.txt" '^PROCESS pid=2 name=emu device 0$' &&
    has "$t.txt" '^TRACK pid=1 tid=[0-9]+ name=host thread 0 \(main\)$' &&
    has "$t.txt" '^TRACK pid=1 tid=[0-9]+ name=host thread [0-9]+' 2 &&
    has "$t.txt" '^TRACK pid=2 tid=[0-9]+ name=emu-dev0\.[0-9]$'
}
check "tracks: host process with two or more named host threads, emu device 0 with a named worker" tracks
kernels() {
  for l in $ln_a $ln_b; do
    has "$t.txt" "^EV ph=X pid=1 tid=[0-9]+ cat=kernel name=__omp_offloading_[0-9a-f]+_[0-9a-f]+_main_l$l source=nowait_threads.c:$l .*nowait=true" &&
      has "$t.txt" "^EV ph=X pid=2 tid=[0-9]+ cat=kernel name=__omp_offloading_[0-9a-f]+_[0-9a-f]+_main_l$l source=nowait_threads.c:$l" || return 1
  done
}
check "kernels: both named, with their source line, submitted on a host track and run on a device track" kernels
copies() {
  for v in alpha beta; do
    has "$t.txt" "cat=copy name=to device $v variable=$v bytes=8192 direction=host to device source=nowait_threads.c:[0-9]+" &&
      has "$t.txt" "cat=copy name=to host $v variable=$v bytes=8192 direction=device to host source=nowait_threads.c:[0-9]+" &&
      has "$t.txt" "cat=memory name=alloc $v variable=$v bytes=8192" &&
      has "$t.txt" "cat=memory name=free $v variable=$v bytes=8192" &&
      has "$t.txt" "cat=map name=map $v: new variable=$v bytes=8192 .*dyn_ref=1 hold_ref=0" || return 1
  done
  has "$t.txt" "cat=copy name=to device alpha .*source=nowait_threads.c:$((ln - 1)) "
}
check "copies, allocations and map decisions name the variables, bytes and source lines" copies
flows() {
  has "$t.txt" '^FLOW ph=s pid=1 tid=[0-9]+ id=1 name=nowait launch$' &&
    has "$t.txt" '^FLOW ph=t pid=2 tid=[0-9]+ id=1 name=nowait launch$' &&
    has "$t.txt" '^FLOW ph=f pid=1 tid=[0-9]+ id=1 name=nowait launch$' &&
    has "$t.txt" '^FLOW ph=s .* id=2 name=nowait launch$' &&
    has "$t.txt" '^FLOWS 2$'
}
check "flows: each nowait launch goes to its device run and to the wait that completed it" flows
regions() {
  has "$t.txt" "cat=construct name=target enter data source=nowait_threads.c:$((ln - 1)) " &&
    has "$t.txt" "cat=construct name=target exit data source=nowait_threads.c:$((ln + 4)) " &&
    has "$t.txt" "cat=construct name=target nowait source=nowait_threads.c:$ln_b " &&
    has "$t.txt" "cat=wait name=wait for the device queue completes=__omp_offloading_.*_main_l$ln_b"
}
check "constructs and waits: enter data, exit data, target nowait, the wait naming its kernel" regions

# 7: LIBOMPTARGET_PROFILE is LLVM's name for the same file.
profile() {
  OMP_TARGET_OFFLOAD=mandatory LIBOMPTARGET_PROFILE=$tmp/p.json "$RUN" "$tmp/nowait_one" &&
    "$CHECK" "$tmp/p.json" >"$tmp/p.txt" && has "$tmp/p.txt" 'cat=kernel name=__omp_offloading_.*_main_l' 4
}
check "LIBOMPTARGET_PROFILE=FILE writes the timeline" profile

# 8: the same program twice: the same events, names, ids and order.
same() {
  for i in 1 2; do
    OMPEMU_TIMELINE=$tmp/d$i.json "$RUN" "$tmp/nowait_one" >/dev/null &&
      "$CHECK" "$tmp/d$i.json" >"$tmp/d$i.txt" || return 1
  done
  diff "$tmp/d1.txt" "$tmp/d2.txt" && has "$tmp/d1.txt" 'name=to host gamma_ variable=gamma_ bytes=2048'
}
check "one host thread: two runs give the same timeline apart from times" same

# 9: in serial mode copies go through the device worker too: they are on
# its track, named.
serial() {
  OMPEMU_SERIAL=1 OMPEMU_TIMELINE=$tmp/se.json "$RUN" "$tmp/nowait_one" >/dev/null &&
    "$CHECK" "$tmp/se.json" >"$tmp/se.txt" &&
    has "$tmp/se.txt" '^EV ph=X pid=2 tid=1 cat=copy name=to device gamma_ variable=gamma_ bytes=2048' &&
    has "$tmp/se.txt" '^EV ph=X pid=2 tid=1 cat=copy name=to host gamma_ variable=gamma_ bytes=2048' &&
    has "$tmp/se.txt" '^TRACK pid=2 tid=1 name=emu-dev0.0$'
}
check "serial mode: queued copies appear on the device worker's track" serial

# 10: under LLVM 14's runtime the emu plugin is never asked for device
# events: it sends none, and nothing writes a timeline.
llvmrt() {
  plugin=$OMPEMU_BUILDDIR/.libs/libomptarget.rtl.emu.so
  [ -f "$plugin" ] || { echo "no $plugin"; return 1; }
  mkdir -p "$tmp/llvm" && ln -sf "$plugin" "$tmp/llvm/libomptarget.rtl.x86_64.so"
  # shellcheck disable=SC2086
  OMPEMU_TIMELINE=$tmp/l.json LD_LIBRARY_PATH="$tmp/llvm:${LLVM14_LIBDIR:-/usr/lib/llvm-14/lib}" \
    OMP_TARGET_OFFLOAD=mandatory ${CLANG_TEST_WRAPPER:-} "$tmp/nowait_one" >"$tmp/l.out" 2>&1 &&
    grep -q 'nowait_one: ok' "$tmp/l.out" && [ ! -e "$tmp/l.json" ]
}
check "under LLVM 14's runtime the emu plugin sends no device event and nothing is written" llvmrt

# 11: a fault in device code: the timeline is written from the signal handler.
fault() {
  OMPEMU_TIMELINE=$tmp/f.json "$RUN" "$tmp/device_fault" 2>"$tmp/f.err"
  rc=$?
  # Under ASan (--enable-sanitizers) its handler, put back after ours,
  # reports the fault and exits 1.
  [ $rc -eq 139 ] || [ $rc -eq 135 ] ||
    { [ $rc -eq 1 ] && grep -q 'AddressSanitizer: SEGV' "$tmp/f.err"; } ||
    { echo "exit status $rc, want death by SIGSEGV"; return 1; }
  # The first kernel ran (host and device tracks); the host thread is
  # inside the second construct, which cannot end before its kernel does:
  # it is there, unfinished, with its kernel's submit (which can end on
  # the host before or after the fault, so finished or not).
  l1=$(grep -n 'delta\[0\] = 1' "$SRC/device_fault.c" | cut -d: -f1)
  l2=$(grep -n '\*bad = 1' "$SRC/device_fault.c" | cut -d: -f1)
  l1=$((l1 - 1)) l2=$((l2 - 1))
  "$CHECK" "$tmp/f.json" >"$tmp/f.txt" &&
    has "$tmp/f.txt" "^EV ph=X pid=2 .*cat=kernel name=__omp_offloading_.*_main_l$l1 source=device_fault.c:$l1\$" &&
    has "$tmp/f.txt" "^EV ph=X pid=1 .*cat=kernel name=__omp_offloading_.*_main_l$l1 source=device_fault.c:$l1 " &&
    has "$tmp/f.txt" "^EV ph=X pid=1 .*cat=construct name=target source=device_fault.c:$l1 device=0\$" &&
    has "$tmp/f.txt" "^EV ph=X pid=1 .*cat=kernel name=__omp_offloading_.*_main_l$l2 source=device_fault.c:$l2 " &&
    has "$tmp/f.txt" "^EV ph=X pid=1 .*cat=construct name=target source=device_fault.c:$l2 device=0 unfinished=true\$" &&
    ! grep -v "source=device_fault.c:$l2 " "$tmp/f.txt" | grep 'unfinished'
}
check "a fault in device code: the timeline is written, valid, with what ran and the construct left unfinished" fault

# 12: LLVM's fatal error path (abort): the timeline is written first.
fatal() {
  OMP_TARGET_OFFLOAD=mandatory OMPEMU_TIMELINE=$tmp/a.json "$RUN" "$tmp/fatal" 2>"$tmp/a.err"
  rc=$?
  [ $rc -eq 134 ] || { echo "exit status $rc, want abort (134)"; cat "$tmp/a.err"; return 1; }
  grep -q 'Libomptarget fatal error 1' "$tmp/a.err" &&
    "$CHECK" "$tmp/a.json" >"$tmp/a.txt" &&
    has "$tmp/a.txt" 'cat=construct name=target enter data source=fatal.c' &&
    has "$tmp/a.txt" 'cat=construct name=target source=fatal.c:.* failed=true'
}
check "LLVM's fatal error (abort): the timeline is written before it" fatal

# 13: a full buffer: events are counted, not kept; the file says so.
full() {
  OMPEMU_TIMELINE_EVENTS=1024 OMPEMU_TIMELINE=$tmp/m.json "$RUN" "$tmp/many" 2>"$tmp/m.err" &&
    grep -q 'events were not recorded (at most 1024 per thread' "$tmp/m.err" &&
    grep -q '"dropped_events":[1-9]' "$tmp/m.json" &&
    "$CHECK" "$tmp/m.json" >"$tmp/m.txt" &&
    [ "$(grep -c '^EV ph=[Xi] pid=1 ' "$tmp/m.txt")" -eq 1024 ] &&
    has "$tmp/m.txt" '^EV ph=X pid=2 .*cat=kernel' 400
}
check "bounded buffers: OMPEMU_TIMELINE_EVENTS caps each thread, the rest is counted" full

# 14: an output file that cannot be opened: said, the program runs.
badfile() {
  OMPEMU_TIMELINE=$tmp/no/such/dir/t.json "$RUN" "$tmp/nowait_one" >"$tmp/b.out" 2>"$tmp/b.err" &&
    grep -q "ompemu: error: cannot open OMPEMU_TIMELINE file '$tmp/no/such/dir/t.json'" "$tmp/b.err" &&
    grep -q 'nowait_one: ok' "$tmp/b.out"
}
check "an output file that cannot be opened is reported, the program still runs" badfile

# 15-18: the summary and the help.
summary() {
  "$RUN" --summary "$tmp/nowait_one" >"$tmp/s.out" 2>"$tmp/s.err" || return 1
  l1=$(grep -n 'target nowait' "$SRC/nowait_one.c" | cut -d: -f1)
  l2=$(grep -n 'target teams distribute' "$SRC/nowait_one.c" | cut -d: -f1)
  has "$tmp/s.err" '^ompemu summary$' &&
    has "$tmp/s.err" "^ +0 +1 +[0-9.]+d +[0-9.]+d  __omp_offloading_.*_main_l$l1 \\(nowait_one.c:$l1\\)$" &&
    has "$tmp/s.err" "^ +0 +1 +[0-9.]+d +[0-9.]+d  __omp_offloading_.*_main_l$l2 \\(nowait_one.c:$l2\\)$" &&
    has "$tmp/s.err" '^ +2048 +1 +2048 +1  gamma_ \(nowait_one.c:[0-9]+\)$'
}
check "ompemu-run --summary: kernels with launches and device times, variables with bytes and copies" summary
summary_many() {
  OMPEMU_SUMMARY=1 "$RUN" "$tmp/many" >/dev/null 2>"$tmp/s2.err" &&
    has "$tmp/s2.err" '^ +0 +400 +[0-9.]+d +[0-9.]+d  __omp_offloading_.*_main_l[0-9]+ \(many.c:[0-9]+\)$' &&
    has "$tmp/s2.err" '^ +25600 +400 +25600 +400  eps \(many.c:[0-9]+\)$'
}
check "OMPEMU_SUMMARY=1: 400 launches of one kernel, 400 copies of 64 bytes each way" summary_many
nothing() {
  rm -f "$tmp/none.json"
  "$RUN" "$tmp/nowait_one" >/dev/null 2>"$tmp/n.err" &&
    ! grep -q 'ompemu summary' "$tmp/n.err" && [ ! -e "$tmp/none.json" ]
}
check "without the variables: no summary" nothing
help() { "$RUN" --help | grep -q -- '--summary'; }
check "ompemu-run --help lists --summary" help
