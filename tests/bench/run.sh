#!/bin/sh
# `make bench`: ompemu against LLVM 14's runtime on the same clang-14
# binaries, in one run.  Each row group is one function (row_*) that
# declares its rows (describe / skip) and runs its measurements; the table
# is printed at the end and written to $builddir/tests/bench/results.txt.
#
# Every benchmark process is run alternately under LLVM 14 (the binary's
# RUNPATH, /usr/lib/llvm-14/lib, x86_64 plugin) and under ompemu
# (ompemu-run, emu device): A B A B ...; each figure is the median over
# those processes (each process reports the median of its own repetitions).
# ratio = ompemu / LLVM 14 for every row: for time and CPU rows lower is
# better (the goal of issue 16 is <= 0.8); for GB/s rows higher is better.
#
# To add a row group: a function row_NAME that calls new_group, checks what
# it needs (have_clang14, or its own test, then skip LABEL REASON and
# return), declares its rows with describe KEY KIND LABEL, and runs
# processes that print "KEY VALUE UNIT" lines: interleave GROUP N for a
# group of bench.c, or its own loop appending "RUNTIME KEY VALUE UNIT" to
# $raw (row_process, row_translate); then call it in the list below.
#
# The clang-22 rows compare ompemu with ompemu: the same launch group built
# by clang 14 (__tgt_target_mapper) and by clang 22 (__tgt_target_kernel,
# KernelArgs version 3), both run under ompemu-run, alternately; the two
# doors share one launch, so the ratio should be about 1.
#
# Environment: BENCH_ROWS (the row groups to run, by the names of their
# row_ functions without the prefix; default all), BENCH_SCALE (iterations x N, default 1), BENCH_RUNS (processes
# per runtime for the quick groups, default 5; the slow groups use 3),
# BENCH_STRESS_TIMEOUT (seconds an ompemu stress run may take before it
# counts as "timeout", default 30 x BENCH_SCALE, or 10 times LLVM 14's run
# if that is longer), BENCH_STRESS_PAIRS (stress processes per runtime,
# default 20), BENCH_PROCESS_RUNS (runs of
# the whole-process row per variant, default 30), CC; CLANG14, CLANG22 and
# LLVM14_LIBDIR come from configure (an empty CLANG14 skips the rows that
# need it, an empty CLANG22 the clang-22 rows).
builddir=$1 srcdir=$2
scale=${BENCH_SCALE:-1}
runs=${BENCH_RUNS:-5}
slow_runs=$(( runs < 3 ? runs : 3 ))
stress_limit=${BENCH_STRESS_TIMEOUT:-$(( 30 * scale ))}
stress_pairs=${BENCH_STRESS_PAIRS:-20}
process_runs=${BENCH_PROCESS_RUNS:-30}
clang=${CLANG14-clang-14}
clang22=${CLANG22-clang-22}
cc=${CC:-cc}
llvm14_lib=${LLVM14_LIBDIR:-/usr/lib/llvm-14/lib}
out=$builddir/tests/bench
ompemu_run=$builddir/ompemu-run
rows=$out/rows.txt # KEY KIND LABEL..., in table order
raw=$out/raw.txt   # RUNTIME KEY VALUE UNIT, one line per figure per process
mkdir -p "$out"
: > "$rows"
: > "$raw"
# Mandatory offload: a plugin that failed to load must not be measured as
# the host fallback.
export OMP_TARGET_OFFLOAD=mandatory
started=$(date '+%Y-%m-%d %H:%M:%S')
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

# describe KEY KIND LABEL: a row of the table.  KIND: time (ratio goal
# <= 0.8), rate (GB/s, higher is better), frac (fraction of memcpy, goal
# >= 0.9), cpu (CPU of threads the program did not create, goal: none),
# info (ompemu only, no ratio), check (ompemu against ompemu-run --check,
# runtimes "ompemu" and "check" in $raw, goal <= 3), paced (wall time of
# work paced by a clock, BENCH_SCALE seconds: nothing can beat it; goal:
# ompemu within 5 % of it).
keys=
describe() {
  echo "$1 $2 $3" >> "$rows"
  keys="$keys $1"
}
# skip LABEL REASON: a row that could not be measured here.
skip() {
  echo "- skip $1: skipped: $2" >> "$rows"
  echo "bench: $1: skipped: $2" >&2
}
# new_group: forget the keys of the previous group.
new_group() { keys=; }

# run_one RUNTIME GROUP [LIMIT]: one process of `bench GROUP SCALE`; its
# figures go to $raw.  A process that times out or fails records "timeout"
# or "failed" for the keys of the current group that it did not print.
run_one() {
  one_rt=$1 one_group=$2 one_limit=${3:-600}
  case $one_rt in
    llvm14) set -- "$out/bench" ;;
    ompemu) set -- "$ompemu_run" "$out/bench" ;;
    check) set -- "$ompemu_run" --check "$out/bench" ;;
    clang22) set -- "$ompemu_run" "$out/bench22" ;;
  esac
  one_t0=$(date +%s.%N)
  timeout "$one_limit" "$@" "$one_group" "$scale" > "$out/one.txt" 2> "$out/one.err"
  rc=$?
  one_wall=$(echo "$one_t0 $(date +%s.%N)" | awk '{ printf "%d", $2 - $1 + 1 }')
  sed "s/^/$one_rt /" "$out/one.txt" >> "$raw"
  [ $rc -eq 0 ] && return 0
  what=failed
  [ $rc -eq 124 ] && what=timeout
  echo "bench: $one_group under $one_rt: $what (exit $rc)" >&2
  sed 's/^/  /' "$out/one.err" | head -5 >&2
  for k in $keys; do
    grep -q "^$k " "$out/one.txt" || echo "$one_rt $k $what -" >> "$raw"
  done
  return 1
}

# interleave GROUP N [LIMIT [FACTOR]]: N processes per runtime, A B A B ...
# An ompemu process may take LIMIT seconds, or FACTOR times as long as the
# LLVM 14 process just before it if that is more (a loaded machine slows
# both).  After an ompemu timeout, ompemu's remaining runs are not started.
interleave() {
  il_group=$1 il_n=$2 il_limit=${3:-600} il_factor=${4:-0} il_i=0 il_emu=1
  while [ $il_i -lt "$il_n" ]; do
    run_one llvm14 "$il_group"
    il_max=$((il_factor * one_wall))
    [ $il_max -gt "$il_limit" ] || il_max=$il_limit
    if [ $il_emu -eq 1 ]; then
      run_one ompemu "$il_group" "$il_max" || { [ $rc -eq 124 ] && il_emu=0; }
    fi
    il_i=$((il_i + 1))
  done
}

have_clang14() {
  [ -n "$clang" ] || { why="configure found no clang-14 (CLANG14)"; return 1; }
  command -v "$clang" > /dev/null 2>&1 || { why="$clang not installed"; return 1; }
  [ -e "$llvm14_lib/libomptarget.so" ] || { why="$llvm14_lib/libomptarget.so missing (libomp-14-dev)"; return 1; }
  [ -x "$out/bench" ] || { why="bench program did not build with $clang"; return 1; }
}

row_launch() {
  new_group
  have_clang14 || { skip "launch rows" "$why"; return; }
  describe launch_empty time "empty launch (ns)"
  describe launch_4KiB_tofrom time "launch, 4 KiB tofrom (sync) (ns)"
  describe launch_4KiB_section time "launch, 4 KiB tofrom of p[0:4096] (ns)"
  describe launch_struct_attach time "launch, map(s, s.p[0:512]), attach (ns)"
  interleave launch "$runs"
  new_group
  describe launch_empty_1core_busy time "empty launch, one core busy (ns)"
  describe launch_4KiB_tofrom_1core_busy time "launch 4 KiB tofrom, one core busy (ns)"
  interleave launch_busy "$runs"
}

row_threads8() {
  new_group
  have_clang14 || { skip "8 host threads launching" "$why"; return; }
  describe launch_8_threads time "8 host threads launching, per region (ns)"
  describe launch_8_omp_threads time "8 threads of omp parallel, 1 KiB tofrom (ns)"
  interleave threads8 "$runs"
}

row_teams() {
  new_group
  have_clang14 || { skip "teams over 1M floats" "$why"; return; }
  describe teams_1M_floats time "teams distribute parallel for, 1M floats tofrom (ns)"
  interleave teams "$slow_runs"
}

row_enter_exit() {
  new_group
  have_clang14 || { skip "enter/exit pairs" "$why"; return; }
  for n in 100 10000 100000; do
    describe enter_exit_pair_${n}_live time "enter+exit pair, $n live, shuffled (ns)"
  done
  interleave enter_exit "$slow_runs"
}

row_update() {
  new_group
  have_clang14 || { skip "target update" "$why"; return; }
  describe update_20000_live time "target update, 20 000 live (ns)"
  describe update_100000_live time "target update, 100 000 live (ns)"
  interleave update "$slow_runs"
}

row_members() {
  new_group
  have_clang14 || { skip "struct array with a mapper" "$why"; return; }
  for n in 1000 16000; do
    describe members_$n time "enter+exit of $n structs, mapper, per struct (ns)"
  done
  interleave members "$slow_runs"
}

row_stress() {
  new_group
  have_clang14 || { skip "stress" "$why"; return; }
  # 20 rounds per BENCH_SCALE: STRESS_ROUNDS in bench_stress.c.  Its time
  # is libomp's threads waiting for a core (tests/bench/PROFILE.md,
  # "8-thread stress"): processes of one runtime differ by 30 % and more,
  # so the row takes $stress_pairs pairs, each pair's order alternating
  # (LLVM 14 first, then ompemu first), and also prints the median of the
  # per-pair ratios.
  describe stress_8_threads time "stress 8 thr x $((20 * scale)) rounds, omp parallel (s)"
  describe stress_pair_ratio info "stress: median of $stress_pairs pair ratios, ompemu/LLVM 14"
  st_i=0 st_emu=1 st_max=$stress_limit
  while [ $st_i -lt "$stress_pairs" ]; do
    if [ $((st_i % 2)) -eq 1 ] && [ $st_emu -eq 1 ]; then
      run_one ompemu stress "$st_max" || { [ $rc -eq 124 ] && st_emu=0; }
      run_one llvm14 stress
    else
      run_one llvm14 stress
      st_max=$((10 * one_wall))
      [ $st_max -gt "$stress_limit" ] || st_max=$stress_limit
      if [ $st_emu -eq 1 ]; then
        run_one ompemu stress "$st_max" || { [ $rc -eq 124 ] && st_emu=0; }
      fi
    fi
    st_i=$((st_i + 1))
  done
  # The k-th ompemu process against the k-th LLVM 14 one; pairs with a
  # timeout or failure are left out.
  awk '$2 == "stress_8_threads" && $1 == "llvm14" { l[nl++] = $3 }
       $2 == "stress_8_threads" && $1 == "ompemu" { e[ne++] = $3 }
       END {
         for (i = 0; i < nl && i < ne; i++)
           if (l[i] ~ /^[0-9.]+$/ && e[i] ~ /^[0-9.]+$/ && l[i] > 0) r[n++] = e[i] / l[i]
         if (!n) exit
         for (i = 1; i < n; i++)
           for (j = i; j > 0 && r[j - 1] > r[j]; j--) { t = r[j]; r[j] = r[j - 1]; r[j - 1] = t }
         printf "ompemu stress_pair_ratio %.3f ratio\n", n % 2 ? r[(n - 1) / 2] : (r[n / 2 - 1] + r[n / 2]) / 2
       }' "$raw" >> "$raw"
}

row_bandwidth() {
  new_group
  have_clang14 || { skip "256 MiB round trip" "$why"; return; }
  describe roundtrip_256MiB rate "256 MiB round trip, to+from (GB/s)"
  describe memcpy_256MiB rate "memcpy 256 MiB x2, same process (GB/s)"
  describe roundtrip_over_memcpy frac "round trip / memcpy (fraction)"
  interleave bandwidth "$slow_runs"
}

# Whole process of trivial.c (one target region), fork to exit, median of
# BENCH_PROCESS_RUNS runs per variant, the three variants interleaved.
row_process() {
  new_group
  have_clang14 || { skip "whole process" "$why"; return; }
  [ -x "$out/trivial" ] && [ -x "$out/walltime" ] ||
    { skip "whole process" "trivial.c or walltime.c did not build"; return; }
  describe process_trivial time "whole process, trivial, default plugins (ms)"
  describe process_trivial_emu_only time "whole process, OMPEMU_PLUGINS=emu (ms)"
  i=0
  while [ $i -lt "$process_runs" ]; do
    v=$("$out/walltime" "$out/trivial") || v=failed
    echo "llvm14 process_trivial $v ms" >> "$raw"
    echo "llvm14 process_trivial_emu_only $v ms" >> "$raw"
    v=$("$out/walltime" "$ompemu_run" "$out/trivial") || v=failed
    echo "ompemu process_trivial $v ms" >> "$raw"
    v=$(OMPEMU_PLUGINS=emu "$out/walltime" "$ompemu_run" "$out/trivial") || v=failed
    echo "ompemu process_trivial_emu_only $v ms" >> "$raw"
    i=$((i + 1))
  done
}

row_idle_cpu() {
  new_group
  have_clang14 || { skip "idle CPU" "$why"; return; }
  describe idle_cpu_other_threads cpu "launch every 1 ms for 1 s: CPU of other thr (ms)"
  describe idle_cpu_other_threads_cores_busy cpu "same, both cores busy: CPU of other thr (ms)"
  describe launch_every_1ms_cores_busy paced "same, both cores busy: wall (s)"
  interleave idle_cpu "$slow_runs"
}

# What the checking mode costs (docs/check.md): the launch and enter/exit
# rows under ompemu-run --check against the same rows without, ompemu and
# check processes alternately (keys prefixed chk_).
row_check() {
  new_group
  have_clang14 || { skip "rows under --check" "$why"; return; }
  describe chk_launch_empty check "empty launch, --check (ns)"
  describe chk_launch_4KiB_tofrom check "launch, 4 KiB tofrom, --check (ns)"
  describe chk_launch_4KiB_section check "launch, p[0:4096], --check (ns)"
  describe chk_launch_struct_attach check "launch, map(s, s.p[0:512]), --check (ns)"
  for n in 100 10000 100000; do
    describe chk_enter_exit_pair_${n}_live check "enter+exit pair, $n live, --check (ns)"
  done
  describe chk_teams_1M_floats check "teams, 1M floats tofrom, --check (ns)"
  for g in launch enter_exit teams; do
    [ $g = launch ] && n=$runs || n=$slow_runs
    i=0
    while [ $i -lt "$n" ]; do
      for rt in ompemu check; do
        before=$(wc -l < "$raw")
        run_one $rt $g
        # This group's keys carry the prefix chk_.
        sed -i "$((before + 1)),\$ { s/^$rt chk_/$rt /; s/^$rt /$rt chk_/; }" "$raw"
      done
      i=$((i + 1))
    done
  done
}

# The launch rows of the clang-22 binary against the clang-14 one, both on
# ompemu (keys prefixed c22_; runtimes "ompemu" and "clang22" in $raw).
row_clang22() {
  new_group
  have_clang14 || { skip "clang-22 launch rows" "$why"; return; }
  [ -x "$out/bench22" ] ||
    { skip "clang-22 launch rows" "${why22:-bench.c did not build with $clang22}"; return; }
  describe c22_launch_empty c22 "empty launch, clang 22 (ns)"
  describe c22_launch_4KiB_tofrom c22 "launch, 4 KiB tofrom, clang 22 (ns)"
  i=0
  while [ $i -lt "$runs" ]; do
    for rt in ompemu clang22; do
      before=$(wc -l < "$raw")
      run_one $rt launch
      sed -i "$((before + 1)),\$ { s/^$rt c22_/$rt /; s/^$rt /$rt c22_/; }" "$raw"
    done
    i=$((i + 1))
  done
}

# Declare target indirect: ns per __kmpc_target_translate_fptr with 10 000
# entries (ompemu only: LLVM 14 has no such table).  cc + ompemu-wrap.
row_translate() {
  new_group
  fb=$out/fptr
  mkdir -p "$fb"
  if sh "$srcdir/tests/lowered/fptr/gen.sh" 10000 f mix "$fb" &&
     $cc -O2 -I"$srcdir/include" -shared -fPIC "$srcdir/tests/bench/fptr_dev.c" \
       "$fb/f_funcs.c" "$fb/f_entries.c" -o "$fb/dev.so" &&
     "$builddir/ompemu-wrap" -o "$fb/wrap.o" "$fb/dev.so" &&
     $cc -O2 -I"$srcdir/include" "$srcdir/tests/bench/fptr_host.c" "$fb/f_funcs.c" \
       "$fb/f_entries.c" "$fb/wrap.o" -L"$builddir/.libs" -lomptarget \
       -Wl,-rpath,"$builddir/.libs" -o "$fb/fptr_bench"; then
    describe translate_10000 info "fptr translation, 10 000 entries (ns)"
    OMPEMU_PLUGINS=emu "$ompemu_run" "$fb/fptr_bench" | sed 's/^/ompemu /' >> "$raw" ||
      echo "ompemu translate_10000 failed -" >> "$raw"
  else
    skip "fptr translation" "the translation benchmark did not build with $cc"
  fi
}

# Build the clang-14 programs once (a missing compiler skips their rows).
rm -f "$out/bench" "$out/trivial" "$out/walltime"
if [ -n "$clang" ] && command -v "$clang" > /dev/null 2>&1; then
  "$clang" -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -pthread \
    "$srcdir/tests/bench/bench.c" "$srcdir/tests/bench/bench_stress.c" -o "$out/bench" ||
    rm -f "$out/bench"
  "$clang" -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu \
    "$srcdir/tests/bench/trivial.c" -o "$out/trivial" || rm -f "$out/trivial"
fi
$cc -O2 "$srcdir/tests/bench/walltime.c" -o "$out/walltime" || rm -f "$out/walltime"
# The clang-22 build links against ompemu as `pkg-config --libs ompemu`
# would, with LLVM 22's own omp.h (tests/compilers/provision.sh).
rm -f "$out/bench22"
why22=
if [ -z "$clang22" ] || ! command -v "$clang22" > /dev/null 2>&1; then
  why22="clang-22 not installed (CLANG22)"
elif ! tree22=$("$srcdir/tests/compilers/provision.sh" --quiet 22 2>/dev/null) ||
     [ -z "$tree22" ]; then
  why22="no private LLVM 22 tree for its omp.h (tests/compilers/provision.sh 22)"
else
  inc22=$(. "${tree22#22 }/ompemu-llvm.env" && echo "$LLVM_RT_INCDIR")
  ompdir=$(dirname "$(readlink -f "$builddir/.libs/libomp.so" 2>/dev/null ||
                      echo "$llvm14_lib/libomp.so.5")")
  "$clang22" -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -pthread \
    -I"$inc22" "$srcdir/tests/bench/bench.c" "$srcdir/tests/bench/bench_stress.c" \
    -L"$builddir/.libs" -Wl,-rpath,"$builddir/.libs" -Wl,-rpath,"$ompdir" \
    -lomptarget -o "$out/bench22" || rm -f "$out/bench22"
fi

# BENCH_ROWS: the row groups to run, by the names of their row_ functions
# (default all): BENCH_ROWS="launch threads8 idle_cpu" make bench.
all_groups="launch clang22 threads8 teams enter_exit update members stress bandwidth process idle_cpu translate check"
for g in ${BENCH_ROWS:-$all_groups}; do
  case " $all_groups " in
    *" $g "*) "row_$g" ;;
    *) echo "bench: BENCH_ROWS: no row group '$g'" >&2 ;;
  esac
done

{
  echo "ompemu make bench, $started to $(date '+%H:%M:%S'), $(nproc) CPUs," \
    "load average $load_start at start, $(cut -d' ' -f1-3 /proc/loadavg) at end"
  echo "BENCH_SCALE=$scale; median of $runs processes per runtime ($slow_runs for the" \
    "slow groups, $stress_pairs for the stress, $process_runs for whole-process rows)," \
    "run alternately"
  awk -v scale="$scale" -f "$srcdir/tests/bench/table.awk" "$rows" "$raw"
} > "$out/results.txt"
cat "$out/results.txt"
