// target thread_limit(n) (OpenMP 5.1, clang 22's default): the launch is
// made from an included task that first calls __kmpc_set_thread_limit (a
// libomp 19 entry point), and KernelArgs carries the limit.
// MIN-CLANG: 22
// NEEDS-LIBOMP: 19
#include "check.h"
#include <omp.h>

int main(void) {
  int n = 0, limit = 0;
#pragma omp target thread_limit(2) map(tofrom: n) map(from: limit)
  {
#pragma omp parallel
    {
#pragma omp atomic
      n++;
    }
    limit = 1;
  }
  CHECK(n >= 1 && limit == 1, "threads %d", n);
  int teams = 0;
#pragma omp target teams num_teams(3) thread_limit(4) map(tofrom: teams)
  {
    if (omp_get_team_num() == 0)
      teams = omp_get_num_teams();
  }
  CHECK(teams >= 1 && teams <= 3, "teams %d", teams);
  return tc_done();
}
