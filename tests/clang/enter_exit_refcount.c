// Unstructured mapping with reference counting: nested enter/exit data,
// a target region inside, data that must (not) be copied at each step.
// In check mode, the second enter data that copies nothing while the host
// changed the data is stale device data kept on purpose:
// a line of check mode's data-movement report, no finding.
#include "check.h"
#include <omp.h>

#define N 100

int main(void) {
  int dev = omp_get_default_device();
  double *p = malloc(N * sizeof *p);
  for (int i = 0; i < N; i++) p[i] = i;
  CHECK(!omp_target_is_present(p, dev), "present before mapping");
#pragma omp target enter data map(to: p[0:N])
  CHECK(omp_target_is_present(p, dev), "not present after enter");
  CHECK(omp_target_is_present(p + 50, dev), "p+50 not present");
  for (int i = 0; i < N; i++) p[i] = -1; /* second enter must not copy */
#pragma omp target enter data map(to: p[0:N])
#pragma omp target map(tofrom: p[0:N])
  for (int i = 0; i < N; i++) p[i] = p[i] * 10;
  CHECK(p[3] == -1, "target end copied back at refcount 2: %g", p[3]);
#pragma omp target exit data map(from: p[0:N])
  CHECK(p[3] == -1, "exit from copied back at refcount 2: %g", p[3]);
  CHECK(omp_target_is_present(p, dev), "not present at refcount 1");
#pragma omp target exit data map(from: p[0:N])
  CHECK(!omp_target_is_present(p, dev), "present after last exit");
  for (int i = 0; i < N; i++)
    if (p[i] != i * 10.0) { CHECK(p[i] == i * 10.0, "p[%d] = %g", i, p[i]); break; }
  free(p);
  return tc_done();
}
