// What clang 16+ put into KernelArgs: the trip count of a combined loop
// construct, num_teams / thread_limit, plain target (one team), and
// literals and pointers among the kernel's parameters.
#include "check.h"
#include <omp.h>

#define N 1000

int main(void) {
  int a[N];
  for (int i = 0; i < N; i++) a[i] = -1;
  /* trip count N; each iteration done once */
#pragma omp target teams distribute parallel for map(tofrom: a)
  for (int i = 0; i < N; i++) a[i] = 2 * i;
  int bad = 0;
  for (int i = 0; i < N; i++) bad += a[i] != 2 * i;
  CHECK(bad == 0, "%d elements wrong", bad);

  /* plain target: one team */
  int nt = -1;
#pragma omp target map(from: nt)
  nt = omp_get_num_teams();
  CHECK(nt == 1, "plain target ran %d teams", nt);

  /* num_teams(3): at most 3 teams, every team_num below that */
  int teams = 0, maxnum = -1;
#pragma omp target teams num_teams(3) thread_limit(2) reduction(+ : teams) reduction(max : maxnum)
  {
    teams++;
    maxnum = omp_get_team_num();
  }
  CHECK(teams >= 1 && teams <= 3 && maxnum < teams, "teams %d, largest team number %d", teams, maxnum);

  /* scalars by value (literals) next to mapped arrays */
  char c = 'x';
  short s = -7;
  double d = 2.5;
  long long ll = 1LL << 40;
  double r = 0;
#pragma omp target map(from: r) firstprivate(c, s, d, ll)
  r = c + s + d + (double)(ll >> 40);
  CHECK(r == 'x' - 7 + 2.5 + 1, "literals: %g", r);
  return tc_done();
}
