// num_teams and thread_limit: the region sees at most the requested number
// of teams and threads, team numbers are in range, and a distributed loop
// still covers every iteration once.
#include "check.h"
#include <omp.h>

#define N 1000

int main(void) {
  int nteams = -1, nthreads = -1, bad_team = 0, bad_threads = 0;
  int hits[N] = {0};
#pragma omp target teams num_teams(3) thread_limit(2) \
    map(tofrom: nteams, nthreads, bad_team, bad_threads)
  {
    int t = omp_get_team_num(), n = omp_get_num_teams();
    if (t < 0 || t >= n) bad_team = 1;
    if (t == 0) nteams = n;
#pragma omp parallel
    {
      if (omp_get_num_threads() > 2) bad_threads = 1;
      if (t == 0 && omp_get_thread_num() == 0) nthreads = omp_get_num_threads();
    }
  }
  CHECK(nteams >= 1 && nteams <= 3, "num_teams(3) gave %d teams", nteams);
  CHECK(nthreads >= 1 && nthreads <= 2, "thread_limit(2) gave %d threads", nthreads);
  CHECK(!bad_team, "team number out of range");
  CHECK(!bad_threads, "a team ran more than thread_limit threads");
#pragma omp target teams distribute parallel for num_teams(4) thread_limit(3) map(tofrom: hits)
  for (int i = 0; i < N; i++) hits[i]++;
  for (int i = 0; i < N; i++) CHECK(hits[i] == 1, "iteration %d ran %d times", i, hits[i]);
  return tc_done();
}
