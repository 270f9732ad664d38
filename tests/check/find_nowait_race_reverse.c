// find_nowait_race.c in the reverse order and on one device thread: the
// same race is reported, and the other outcome is the one every run shows
// (x = 0 * 2 + 1).
// OMPEMU-RUN: --check
// RUN-ENV: OMPEMU_CHECK_ORDER=reverse OMPEMU_SERIAL=1
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: race between nowait target regions: the one at find_nowait_race.c:23 (kernel __omp_offloading_
// EXPECT-STDERR: and the one at find_nowait_race.c:20 (kernel __omp_offloading_
// EXPECT-STDERR: (ompemu ran the batch in the order find_nowait_race.c:23, find_nowait_race.c:20)
// EXPECT-STDOUT: x[7] = 1
// RUN-TWICE-SAME-STDERR
#include "find_nowait_race.c"
