// A race between a target nowait region that writes A and a target update
// nowait that copies A back, with no dependence between them: the update
// may copy A before or after the kernel wrote it.  Data constructs' nowait
// forms join the batch of nowait regions like target regions do.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: race between nowait constructs: the target nowait region at find_nowait_update_race.c:18 (kernel __omp_offloading_
// EXPECT-STDERR: _main_l18) and the target update nowait at find_nowait_update_race.c:20 were in flight together with no dependence between them, and each uses a (declared at find_nowait_update_race.c:13): the first writes it and the second reads it; depend clauses or a taskwait order them (ompemu ran the batch in the order find_nowait_update_race.c:18, find_nowait_update_race.c:20)
// EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#define N 2048
static float a[N];

int main(void) {
  for (int i = 0; i < N; i++) a[i] = 1;
#pragma omp target enter data map(to: a)
#pragma omp target teams distribute parallel for nowait
  for (int i = 0; i < N; i++) a[i] *= 3;
#pragma omp target update from(a) nowait
#pragma omp taskwait
#pragma omp target exit data map(delete: a)
  printf("a[0] = %g\n", a[0]);
  return 0;
}
